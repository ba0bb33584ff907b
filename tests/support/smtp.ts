import PostalMime, { type Email } from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import { freePort } from './site';

export type ReceivedMail = Email & { raw: string; envelopeTo: string[]; /** MAIL FROM: the envelope sender (Return-Path). */ envelopeFrom: string };

/** An SMTP reply refusing a recipient: 4xx (try again later) or 5xx (permanent). */
export type Refusal = { code: number; message: string };

/**
 * A real SMTP server in the test process, collecting every message it accepts.
 * `refuse` answers a recipient with a refusal instead (called for every RCPT TO,
 * so it can refuse an address once and accept it later). `answerAfterMs`: a slow
 * relay, which has a message (and counts it received) as soon as its data ends,
 * and answers it that much later (a function: asked at each message).
 */
export async function startSmtp(port?: number, options: { refuse?: (address: string) => Refusal | undefined; answerAfterMs?: number | (() => number) } = {}) {
  const messages: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = options.refuse?.(address.address);
      if (!refusal) return callback();
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        PostalMime.parse(raw)
          .then((parsed) => {
            messages.push({
              ...parsed,
              raw,
              envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            });
            for (const wake of waiters.splice(0)) wake();
            const answerAfterMs = typeof options.answerAfterMs === 'function' ? options.answerAfterMs() : options.answerAfterMs;
            if (answerAfterMs) setTimeout(callback, answerAfterMs);
            else callback();
          })
          .catch(callback);
      });
    },
  });
  // A client killed mid-conversation (a test's kill -9 of the server) resets its connection: that is
  // the client's end, not a failure of this server.
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') throw error;
  });
  const listenPort = port ?? (await freePort());
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  return {
    port: listenPort,
    url: `smtp://127.0.0.1:${listenPort}`,
    messages,
    /** Waits until a message matching `match` has arrived (bounded by the test's own timeout). */
    async waitFor(match: (mail: ReceivedMail) => boolean): Promise<ReceivedMail> {
      for (;;) {
        const found = messages.find(match);
        if (found) return found;
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 250);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
