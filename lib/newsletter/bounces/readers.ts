import path from 'node:path';
import type { Settings } from '../../settings';
import type { Store } from '../../services/store/types';
import { createBounceHandler, keepMessage } from '.';
import { startImapPoller } from './imap';
import { startBounceListener } from './listener';

/** The long-lived readers of what comes back, started by startServices and stopped with it. */
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
  const listener =
    settings.bounces.smtp &&
    startBounceListener({
      ...settings.bounces.smtp,
      bounceDomain: bounceAddress.slice(bounceAddress.lastIndexOf('@') + 1),
      handle,
      keep: (raw) => keepMessage(keepDir, raw, log),
      log,
    });
  const poller = settings.bounces.imap && startImapPoller({ ...settings.bounces.imap, handle, log });
  return {
    listenerPort: listener ? listener.ready : Promise.resolve(undefined),
    stop() {
      listener?.stop();
      poller?.stop();
    },
    async drain() {
      await Promise.all([listener?.drain(), poller?.drain()]);
    },
  };
}
