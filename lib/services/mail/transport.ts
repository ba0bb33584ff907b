import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import { config } from '../../config';
import { site } from '../../content';
import { dataDir } from '../store';
import type { OutgoingMail } from '../store/types';

export type MailTransport = { readonly kind: 'smtp' | 'outbox'; send(mail: OutgoingMail): Promise<void> };

/** The sender of every message: MAIL_FROM, or the site's name at no-reply@ its host. */
export function mailFrom(): { name: string; address: string } {
  const configured = process.env.MAIL_FROM;
  if (configured) {
    const match = /^(.*)<([^>]+)>\s*$/.exec(configured);
    return match ? { name: (match[1] ?? '').trim().replace(/^"|"$/g, ''), address: (match[2] ?? '').trim() } : { name: site().name, address: configured.trim() };
  }
  return { name: site().name, address: `no-reply@${new URL(config().siteUrl).hostname}` };
}

function message(mail: OutgoingMail) {
  return {
    from: mailFrom(),
    to: mail.to,
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    headers: mail.headers,
  };
}

/** SMTP through nodemailer when SMTP_URL is set; otherwise one readable .eml file per message. */
export function createTransport(): MailTransport {
  const smtpUrl = process.env.SMTP_URL;
  if (smtpUrl) {
    const transporter: Transporter = nodemailer.createTransport(smtpUrl);
    return { kind: 'smtp', send: async (mail) => void (await transporter.sendMail(message(mail))) };
  }
  const folder = path.resolve(process.env.MAIL_OUTBOX_DIR || path.join(dataDir(), 'outbox'));
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'outbox',
    async send(mail) {
      const info = await transporter.sendMail(message(mail));
      fs.mkdirSync(folder, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`;
      fs.writeFileSync(path.join(folder, name), info.message as Buffer);
    },
  };
}
