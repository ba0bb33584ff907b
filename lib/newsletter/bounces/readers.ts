import path from 'node:path';
import type { Settings } from '../../settings';
import type { Store } from '../../services/store/types';
import { createBounceHandler, keepMessage } from '.';
import type { ImapPoller } from './imap';
import type { BounceListener } from './listener';

/** The long-lived readers of what comes back, a part of the runtime (lib/runtime): started and stopped with it. */
export type BounceReaders = { listenerPort: Promise<number | undefined>; stop: () => void; drain: () => Promise<void> };

/**
 * Starts what the settings ask for: the SMTP listener (BOUNCE_SMTP_PORT) and the IMAP poller
 * (BOUNCE_IMAP_URL), both needing BOUNCE_ADDRESS (the tokens they match are its). Kept messages
 * from the listener go to DATA_DIR/bounces-kept; the poller leaves them in their mailbox.
 */
export function startBounceReaders(
  settings: Pick<Settings, 'mail' | 'bounces' | 'store'>,
  store: Pick<Store, 'bounces'>,
  log: Pick<Console, 'log' | 'warn'> = console,
): BounceReaders {
  const bounceAddress = settings.mail.bounceAddress;
  if (!bounceAddress || (!settings.bounces.smtp && !settings.bounces.imap)) {
    if (!bounceAddress && (settings.bounces.smtp || settings.bounces.imap))
      log.warn('bounces: BOUNCE_ADDRESS is not set, so nothing is read from BOUNCE_SMTP_PORT or BOUNCE_IMAP_URL');
    return { listenerPort: Promise.resolve(undefined), stop: () => {}, drain: async () => {} };
  }
  const handle = createBounceHandler({ store, bounceAddress, soft: settings.bounces.soft, log });
  const keepDir = path.join(settings.store.dataDir, 'bounces-kept');
  // smtp-server, imapflow and mailparser are loaded only where a reader is set up: a site that reads no bounces does not carry them.
  const started: Promise<[BounceListener | undefined, ImapPoller | undefined]> = Promise.all([
    settings.bounces.smtp
      ? import('./listener').then(({ startBounceListener }) =>
          startBounceListener({
            ...settings.bounces.smtp!,
            bounceDomain: bounceAddress.slice(bounceAddress.lastIndexOf('@') + 1),
            handle,
            keep: (raw) => keepMessage(keepDir, raw, log, settings.bounces.keptMaxBytes),
            log,
          }),
        )
      : undefined,
    settings.bounces.imap ? import('./imap').then(({ startImapPoller }) => startImapPoller({ ...settings.bounces.imap!, handle, log })) : undefined,
  ]);
  return {
    listenerPort: started.then(([listener]) => listener?.ready),
    stop() {
      void started.then(
        ([listener, poller]) => {
          listener?.stop();
          poller?.stop();
        },
        () => undefined,
      );
    },
    async drain() {
      const [listener, poller] = await started;
      await Promise.all([listener?.drain(), poller?.drain()]);
    },
  };
}
