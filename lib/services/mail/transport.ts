import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Env } from '../../env';
import { dataDir } from '../store';
import type { OutgoingMail } from '../store/types';

export type MailTransport = { readonly kind: 'smtp' | 'outbox'; send(mail: OutgoingMail): Promise<void>; close?(): void };

/** Connections a pooled transport keeps open (the newsletter's). */
export const POOL_CONNECTIONS = 3;

/** A failure the mail server said is permanent (an SMTP 5xx reply): sending again will not help. */
export function isPermanentFailure(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | undefined)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

export type TransportSettings = Pick<Env, 'MAIL_FROM' | 'SITE_URL' | 'SMTP_URL' | 'MAIL_OUTBOX_DIR' | 'DATA_DIR'>;
type Sender = { name: string; address: string };

/** The sender of every message: MAIL_FROM (`address` or `Name <address>`), or the site's name at no-reply@ its host. */
export function mailFrom(settings: Pick<Env, 'MAIL_FROM' | 'SITE_URL'>, siteName: string): Sender {
  const configured = settings.MAIL_FROM;
  if (configured) {
    const match = /^(.*)<([^>]+)>\s*$/.exec(configured);
    return match ? { name: (match[1] ?? '').trim().replace(/^"|"$/g, ''), address: (match[2] ?? '').trim() } : { name: siteName, address: configured.trim() };
  }
  return { name: siteName, address: `no-reply@${new URL(settings.SITE_URL).hostname}` };
}

/** The message nodemailer composes: the stored mail and its sender. */
export function message(mail: OutgoingMail, from: Sender) {
  return {
    from,
    to: mail.to,
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    headers: mail.headers,
  };
}

/**
 * SMTP through nodemailer when SMTP_URL is set; otherwise one readable .eml
 * file per message in MAIL_OUTBOX_DIR (default DATA_DIR/outbox). `siteName` is
 * asked for when a message is sent: the sender's name when MAIL_FROM gives none.
 * With `pool`, SMTP keeps a few connections open and sends at most `rate`
 * messages a second over them (0: no limit), for a long run of messages.
 */
export function createTransport(settings: TransportSettings, siteName: () => string, pool?: { rate: number }): MailTransport {
  const from = () => mailFrom(settings, siteName());
  const smtpUrl = settings.SMTP_URL;
  if (smtpUrl) {
    const transporter: Transporter = pool
      ? nodemailer.createTransport({
          url: smtpUrl,
          pool: true,
          maxConnections: POOL_CONNECTIONS,
          ...(pool.rate > 0 ? { rateDelta: 1000, rateLimit: Math.max(1, Math.round(pool.rate)) } : {}),
        })
      : nodemailer.createTransport(smtpUrl);
    return { kind: 'smtp', send: async (mail) => void (await transporter.sendMail(message(mail, from()))), close: () => transporter.close() };
  }
  const folder = path.resolve(settings.MAIL_OUTBOX_DIR ?? path.join(dataDir(settings), 'outbox'));
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    kind: 'outbox',
    async send(mail) {
      const info = await transporter.sendMail(message(mail, from()));
      fs.mkdirSync(folder, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`;
      fs.writeFileSync(path.join(folder, name), info.message as Buffer);
    },
    close: () => transporter.close(),
  };
}
