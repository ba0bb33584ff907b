import { createHash } from 'node:crypto';
import { simpleParser, type Attachment, type ParsedMail } from 'mailparser';
import type { BounceKind } from '../../services/store/types';
import { verpToken } from '../../services/mail/envelope';

/**
 * What a message that came back to the bounce address says: a delivery status
 * notification (RFC 3464: `multipart/report; report-type=delivery-status`) or a
 * feedback-loop report (ARF, RFC 5965: `report-type=feedback-report`), read with
 * mailparser, about the message whose VERP token it carries.
 */
export type Report =
  { readable: true; kind: BounceKind; token: string | undefined; detail: string; reportId: string } | { readable: false; reason: string; reportId: string };

/** RFC 3464 and 5965 fields: header syntax, in blocks separated by blank lines (per message, per recipient). */
async function fieldBlocks(content: Buffer): Promise<Map<string, string>[]> {
  const blocks = content
    .toString('utf8')
    .split(/\r?\n\s*\r?\n/)
    .filter((block) => block.trim());
  return Promise.all(
    blocks.map(async (block) => {
      const { headerLines } = await simpleParser(`${block.trim()}\r\n\r\n`, { skipHtmlToText: true, skipTextToHtml: true });
      const fields = new Map<string, string>();
      for (const { key, line } of headerLines) fields.set(key, line.slice(line.indexOf(':') + 1).trim());
      return fields;
    }),
  );
}

const part = (mail: ParsedMail, ...types: string[]): Attachment | undefined =>
  mail.attachments.find((attachment) => types.includes(attachment.contentType.toLowerCase()));

/** Every address a report names for its own delivery: where it was delivered to (the VERP address, on most servers). */
function deliveredTo(mail: ParsedMail): string[] {
  const names = new Set(['delivered-to', 'x-original-to', 'envelope-to', 'to']);
  return mail.headerLines.filter(({ key }) => names.has(key)).flatMap(({ line }) => line.slice(line.indexOf(':') + 1).match(/[^\s<>,:;"]+@[^\s<>,;"]+/g) ?? []);
}

/** The VERP token anywhere in a text (the returned message's own headers: its Return-Path). */
function tokenIn(text: string, bounceAddress: string): string | undefined {
  const at = bounceAddress.lastIndexOf('@');
  const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`${escape(bounceAddress.slice(0, at))}\\+([A-Za-z0-9_-]{32})${escape(bounceAddress.slice(at))}`, 'i');
  return pattern.exec(text)?.[1];
}

/**
 * Reads one message that came to the bounce address. `envelopeTo`: the recipients its SMTP
 * envelope named (lectern's own listener knows them). Never throws: what it cannot read is
 * `readable: false` with the reason, for the caller to log and keep.
 */
export async function readReport(raw: Buffer, bounceAddress: string, envelopeTo: readonly string[] = []): Promise<Report> {
  let mail: ParsedMail;
  let reportId = `sha256:${createHash('sha256').update(raw).digest('base64url')}`;
  try {
    mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true, keepDeliveryStatus: true });
  } catch (error) {
    return { readable: false, reason: `not a mail message (${(error as Error).message})`, reportId };
  }
  if (mail.messageId) reportId = mail.messageId;
  const original = part(mail, 'message/rfc822', 'text/rfc822-headers');
  const token =
    [...envelopeTo, ...deliveredTo(mail)].map((address) => verpToken(address, bounceAddress)).find(Boolean) ??
    (original ? tokenIn(original.content.toString('utf8'), bounceAddress) : undefined) ??
    // A returned message mailparser shows inline (an ARF report's message/rfc822) is read in the raw text.
    tokenIn(raw.toString('latin1'), bounceAddress);

  const feedback = part(mail, 'message/feedback-report');
  if (feedback) {
    const [fields] = await fieldBlocks(feedback.content);
    const type = fields?.get('feedback-type') ?? 'abuse';
    return { readable: true, kind: 'complaint', token, detail: `feedback report: ${type}`, reportId };
  }
  const status = part(mail, 'message/delivery-status', 'message/global-delivery-status');
  if (!status) return { readable: false, reason: 'neither a delivery status notification nor a feedback report', reportId };
  const recipients = (await fieldBlocks(status.content)).filter((fields) => fields.has('status') || fields.has('action'));
  const failed = recipients.find((fields) => /^failed$/i.test(fields.get('action') ?? '') || /^5\./.test(fields.get('status') ?? ''));
  const delayed = recipients.find((fields) => /^delayed$/i.test(fields.get('action') ?? '') || /^4\./.test(fields.get('status') ?? ''));
  const chosen = failed ?? delayed;
  if (!chosen) return { readable: false, reason: 'a delivery status notification without a failure or delay (delivered, relayed or expanded)', reportId };
  const code = chosen.get('status') ?? '';
  const kind: BounceKind = /^5\./.test(code) || (!/^4\./.test(code) && chosen === failed) ? 'hard' : 'soft';
  const diagnostic = (chosen.get('diagnostic-code') ?? '').replace(/\s+/g, ' ');
  return { readable: true, kind, token, detail: [code, diagnostic].filter(Boolean).join(' ').slice(0, 300), reportId };
}
