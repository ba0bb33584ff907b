import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { describeError } from '../../log';
import type { BounceHandler } from '.';

/** The most one message that came back may weigh: a bounce carries at most the returned message. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export type BounceListener = { ready: Promise<number>; stop: () => void; drain: () => Promise<void> };

/**
 * lectern's own inbound SMTP listener for the bounce domain (the operator's MX or relay forwards
 * it here): each message is handed to `handle` with its envelope recipients; one that is kept is
 * given to `keep`. It takes mail only for the bounce address's domain, and answers 250 once the
 * message is recorded or kept, so a sender tries again whatever failed before that.
 */
export function startBounceListener(options: {
  port: number;
  host: string;
  bounceDomain: string;
  handle: BounceHandler;
  keep: (raw: Buffer) => void;
  log?: Pick<Console, 'log' | 'warn'>;
  /** The largest message taken (MAX_MESSAGE_BYTES unless given): announced with SIZE, and refused 552 past it. */
  maxMessageBytes?: number;
}): BounceListener {
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const { handle, keep } = options;
  const log = options.log ?? console;
  const domain = options.bounceDomain.toLowerCase();
  const inFlight = new Set<Promise<void>>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: maxBytes,
    banner: 'lectern bounces',
    onRcptTo(address, _session, callback) {
      if (address.address.toLowerCase().endsWith(`@${domain}`)) return callback();
      callback(Object.assign(new Error('5.1.1 not a bounce address here'), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      // Nothing past the limit is kept: the rest of an oversized message is read and dropped, then refused.
      let chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) chunks = [];
        else chunks.push(chunk);
      });
      stream.on('end', () => {
        if (size > maxBytes || (stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          callback(Object.assign(new Error('5.3.4 message too big'), { responseCode: 552 }));
          return;
        }
        const raw = Buffer.concat(chunks);
        const work = handle(
          raw,
          session.envelope.rcptTo.map((rcpt) => rcpt.address),
        )
          .then((handled) => {
            if (handled.kept) keep(raw);
            callback();
          })
          .catch((error: unknown) => {
            log.warn(`bounces: could not record a message (${describeError(error)}); the sender will try again`);
            callback(Object.assign(new Error('4.3.0 try again later'), { responseCode: 451 }));
          })
          .finally(() => inFlight.delete(work));
        inFlight.add(work);
      });
    },
  });
  server.on('error', (error) => log.warn(`bounces: listener error (${describeError(error)})`));
  const ready = new Promise<number>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port, options.host, () => resolve((server.server.address() as AddressInfo).port));
  });
  let closed: Promise<void> | undefined;
  return {
    ready,
    stop: () => void (closed ??= new Promise<void>((resolve) => server.close(() => resolve()))),
    async drain() {
      await Promise.all([...inFlight]);
      await closed;
    },
  };
}
