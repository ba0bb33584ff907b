import { parentPort, workerData } from 'node:worker_threads';
import { describeError } from '../log';
import { createTransport } from '../services/mail/transport';
import { encodeMail, personalEncodedMail, type EncodedMail } from './copies';
import type { FromMailThread, MailThreadSetup, ToMailThread } from './mail-thread';

/**
 * The newsletter's mail thread (./mail-thread.ts): it keeps each send's mail encoded once (./copies.ts),
 * makes each reader's copy from it and sends it over its own pooled SMTP connections, answering each
 * message with the mail server's verdict. It loads only the copies and the transport.
 */
const port = parentPort;
if (!port) throw new Error('lib/newsletter/mail-thread-worker.ts runs as the mail thread of lectern');

const { setup } = workerData as { setup: MailThreadSetup };
const transport = createTransport(setup.settings, () => setup.site.name, true);
/** The sends' mails, by post: a send lasts until its last reader is mailed, and few run at once. */
const encoded = new Map<string, EncodedMail>();
const KEPT = 8;

async function send(message: Extract<ToMailThread, { id: number }>): Promise<FromMailThread> {
  const mail = encoded.get(message.slug);
  if (!mail) return { id: message.id, failed: { message: `the mail of "${message.slug}" did not reach the mail thread` } };
  try {
    await transport.send(personalEncodedMail(mail, message.to, message.unsubscribe, setup.site), undefined, message.bounceToken);
    return { id: message.id };
  } catch (error) {
    const responseCode = (error as { responseCode?: unknown }).responseCode;
    return { id: message.id, failed: { message: describeError(error), ...(typeof responseCode === 'number' ? { responseCode } : {}) } };
  }
}

port.on('message', (message: ToMailThread) => {
  if ('close' in message) {
    transport.close?.();
    port.close();
  } else if ('mail' in message) {
    encoded.delete(message.mail.slug);
    encoded.set(message.mail.slug, encodeMail(message.mail));
    for (const slug of encoded.keys()) if (encoded.size > KEPT) encoded.delete(slug);
  } else void send(message).then((answer) => port.postMessage(answer));
});
