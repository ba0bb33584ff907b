import { ImapFlow } from 'imapflow';
import { describeError } from '../../log';
import type { BounceHandler } from '.';

export type ImapPoller = { poll: () => Promise<void>; stop: () => void; drain: () => Promise<void> };

/**
 * Polls an IMAP mailbox of bounces and complaints (`imap[s]://user:password@host:port/Mailbox`):
 * each unseen message is handed to `handle`, then flagged \Seen. Nothing is deleted: a message that
 * was kept (unreadable, or naming no message of ours) stays for a person to read, flagged as well
 * with the keyword `lectern-kept`. One poll at a time; a mailbox that cannot be reached is tried
 * at the next poll.
 */
export function startImapPoller(options: { url: string; pollMs: number; handle: BounceHandler; log?: Pick<Console, 'log' | 'warn'> }): ImapPoller {
  const { handle } = options;
  const log = options.log ?? console;
  const url = new URL(options.url);
  const mailbox = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'INBOX';
  let stopped = false;
  let running: Promise<void> | undefined;

  async function once(): Promise<void> {
    const client = new ImapFlow({
      host: url.hostname,
      port: Number(url.port) || (url.protocol === 'imaps:' ? 993 : 143),
      secure: url.protocol === 'imaps:',
      auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
      logger: false,
    });
    client.on('error', (error: unknown) => log.warn(`bounces: IMAP error (${describeError(error)})`));
    await client.connect();
    try {
      const lock = await client.getMailboxLock(mailbox);
      try {
        const unseen = (await client.search({ seen: false }, { uid: true })) || [];
        for (const uid of unseen) {
          if (stopped) break;
          const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
          if (!message || !message.source) continue;
          const handled = await handle(message.source);
          await client.messageFlagsAdd(String(uid), handled.kept ? ['\\Seen', 'lectern-kept'] : ['\\Seen'], { uid: true });
        }
      } finally {
        lock.release();
      }
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  const poll = async () => {
    if (stopped) return;
    running ??= once()
      .catch((error: unknown) => log.warn(`bounces: could not read the IMAP mailbox (${describeError(error)}); trying again at the next poll`))
      .finally(() => (running = undefined));
    await running;
  };
  const timer = setInterval(() => void poll(), options.pollMs);
  timer.unref();
  void poll();
  return {
    poll,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    drain: async () => {
      await running;
    },
  };
}
