import type { Worker } from 'node:worker_threads';
import { describeError } from '../log';
import { LOWEST_PRIORITY, startThread } from '../runtime/threads';
import type { UnsubscribeLinks } from '../services/mail/list-headers';
import type { TransportSettings } from '../services/mail/transport';
import type { MailSite, NewsletterMail } from './copies';
import type { MessageTransport } from './sender';

/**
 * The newsletter's mail thread, on lectern's server: each reader's copy of a post's mail is made and
 * handed to the SMTP server in a worker thread of its own (./mail-thread-worker.ts), at the lowest CPU
 * priority and with a small heap of its own. A send of 10,000 makes about half a gigabyte of short-lived
 * Buffers (each copy, and nodemailer's SMTP stream); in the server's thread they raise its memory between
 * full collections by tens of megabytes and take the CPU from the readers it answers. The server's thread
 * keeps the send's claims, retries and records (./sender.ts) and hands the thread a copy's parts only.
 */

/** One reader's copy as the newsletter hands it over: the send's mail, the reader, their unsubscribe links. */
export type ThreadMessage = { mail: NewsletterMail; to: { email: string }; unsubscribe: UnsubscribeLinks };

/** What the thread is started with: how it sends (SMTP_URL, MAIL_FROM, DKIM, the bounce address) and the site its copies name. */
export type MailThreadSetup = { settings: TransportSettings; site: Pick<MailSite, 'name' | 'url' | 'replyTo'> };

/** Makes the newsletter's transport that sends through a mail thread (lib/runtime hands it to lib/newsletter). */
export type MailThreadFactory = (setup: MailThreadSetup) => MessageTransport<ThreadMessage>;

export type ToMailThread =
  { mail: NewsletterMail } | { id: number; slug: string; to: { email: string }; unsubscribe: UnsubscribeLinks; bounceToken?: string } | { close: true };
export type FromMailThread = { id: number; failed?: { message: string; responseCode?: number } };

/**
 * The thread's heap: its copies are made and sent a few at a time, so a small young generation (a
 * semi-space of about 1 MiB) is collected often and cheaply, and what it holds stays small: 12 to
 * 15 MiB live during a send of 10,000 (the transport's connections and the encoded mails, whose parts
 * are Buffers outside the heap). An old generation of 32 MiB is collected before it grows far past
 * that; at 96 MiB a send grew the thread's heap by about 6 MiB more (BENCHMARKS.md).
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 };
/** How long a closing thread has to end its SMTP connections (QUIT) before it is ended. */
const CLOSE_MS = 2000;

type Pending = { resolve: () => void; reject: (error: Error) => void };

/**
 * The newsletter's transport through a mail thread. `start` starts the thread (the runtime's newsletter
 * part does, so its start-up is not a send's); a send with no thread running (the first, or the first
 * after a thread ended) starts one. A thread that ends with messages in hand fails them as temporary
 * failures (./sender.ts tries them again later: a copy the SMTP server had taken may then reach its
 * reader twice, with the same Message-ID, as after any crash). `close` ends the thread once its
 * connections are closed; nothing of it is left when `close` resolves.
 */
export function mailThread(setup: MailThreadSetup, options: { entry?: URL } = {}): MessageTransport<ThreadMessage> {
  const entry = options.entry ?? new URL('./mail-thread-worker.ts', import.meta.url);
  let nextId = 0;
  /** The thread running, the mails it has, and the messages it holds. */
  let thread: { worker: Worker; mails: WeakSet<NewsletterMail>; pending: Map<number, Pending>; exited: Promise<void> } | undefined;

  const failAll = (pending: Map<number, Pending>, reason: string) => {
    for (const { reject } of pending.values()) reject(new Error(reason));
    pending.clear();
  };

  function spawn() {
    const worker = startThread(entry, { data: { setup }, resourceLimits: RESOURCE_LIMITS, niceness: LOWEST_PRIORITY });
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const pending = new Map<number, Pending>();
    const started = { worker, mails: new WeakSet<NewsletterMail>(), pending, exited };
    worker.on('message', (message: FromMailThread) => {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.failed) waiting.reject(Object.assign(new Error(message.failed.message), { responseCode: message.failed.responseCode }));
      else waiting.resolve();
    });
    let failure = '';
    worker.on('error', (error) => (failure = describeError(error)));
    worker.once('exit', (code) => {
      if (thread === started) thread = undefined;
      failAll(pending, `the mail thread ended (${failure || `exit code ${code}`}) before the mail server answered`);
    });
    return (thread = started);
  }

  return {
    start() {
      if (!thread) spawn();
    },
    send(message, _id, bounceToken) {
      const { worker, mails, pending } = thread ?? spawn();
      // The send's mail crosses once per thread; each copy then carries only the reader's part.
      if (!mails.has(message.mail)) {
        worker.postMessage({ mail: message.mail } satisfies ToMailThread);
        mails.add(message.mail);
      }
      const id = (nextId += 1);
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({
          id,
          slug: message.mail.slug,
          to: message.to,
          unsubscribe: message.unsubscribe,
          ...(bounceToken ? { bounceToken } : {}),
        } satisfies ToMailThread);
      });
    },
    async close() {
      const closing = thread;
      if (!closing) return;
      thread = undefined;
      closing.worker.postMessage({ close: true } satisfies ToMailThread);
      const timer = setTimeout(() => void closing.worker.terminate(), CLOSE_MS);
      await closing.exited;
      clearTimeout(timer);
      failAll(closing.pending, 'the mail thread was closed before the mail server answered');
    },
  };
}
