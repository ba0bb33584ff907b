import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './site';
import { until } from './until';

/** Debian installs Postfix in /usr/sbin, which is not on every user's PATH. */
const POSTFIX = fs.existsSync('/usr/sbin/postfix') ? '/usr/sbin/postfix' : 'postfix';

/** The domain the test Postfix delivers locally (virtual(8) into maildirs). */
export const LOCAL_DOMAIN = 'mail.test';

export type TestPostfix = {
  /** smtp://127.0.0.1:<port>: Postfix's smtpd, taking mail from loopback. */
  url: string;
  /** Messages delivered to `name@LOCAL_DOMAIN` (its maildir's new/ folder), raw, oldest first. */
  delivered: (name: string) => string[];
  /** Postfix's own log (maillog_file), for a failing test's message. */
  log: () => string;
  stop: () => Promise<void>;
};

/**
 * A Postfix of the test's own (Debian's binaries, a config directory, queue and maildirs in a
 * temporary folder, `postfix -c <dir> start`), never the system instance. It listens on a free
 * loopback port and delivers `LOCAL_DOMAIN` into maildirs: each of `mailboxes` accepts,
 * each of `bouncing` (name → enhanced status and text, e.g. "5.2.0 mailbox disabled") is accepted at
 * the door and bounced afterwards by a pipe(8) command that fails, and a copy of all mail Postfix accepts for it goes to
 * the mailbox `<name>-copy` (so a test sees what it was sent). Each of `deferring` (name → a 4.x.x
 * status and text, e.g. "4.2.2 mailbox full") is accepted and then fails temporarily on every try, so
 * Postfix keeps it queued and, a second after it came, sends its delay notice (delay_warning_time):
 * a soft bounce. Mail to `relayDomain` goes over SMTP to `relayPort` on loopback: where the bounces go.
 */
export async function startPostfix(options: {
  mailboxes: string[];
  bouncing: Record<string, string>;
  deferring?: Record<string, string>;
  relayDomain: string;
  relayPort: number;
}): Promise<TestPostfix> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-postfix-'));
  const config = path.join(root, 'etc');
  const maildirs = path.join(root, 'maildirs');
  const postfixUid = Number(execFileSync('id', ['-u', 'postfix']).toString().trim());
  const postfixGid = Number(execFileSync('id', ['-g', 'postfix']).toString().trim());
  // Postfix's daemons run as the postfix user: they must pass through the folder; the queue is
  // root's (Postfix makes its subfolders), its data folder and the maildirs are Postfix's.
  fs.chmodSync(root, 0o755);
  fs.mkdirSync(config);
  fs.mkdirSync(path.join(root, 'queue'));
  for (const folder of [maildirs, path.join(root, 'data')]) {
    fs.mkdirSync(folder);
    fs.chownSync(folder, postfixUid, postfixGid);
  }
  const port = await freePort();
  const deferring = options.deferring ?? {};
  // Each failing mailbox: its pipe command's exit code (69 EX_UNAVAILABLE: bounced; 75 EX_TEMPFAIL: deferred) and what it says.
  const failing = [
    ...Object.entries(options.bouncing).map(([name, reason]) => ({ name, reason, exit: 69 })),
    ...Object.entries(deferring).map(([name, reason]) => ({ name, reason, exit: 75 })),
  ];
  const bouncingNames = failing.map(({ name }) => name);
  const names = [...options.mailboxes, ...bouncingNames, ...bouncingNames.map((name) => `${name}-copy`)];
  const file = (name: string, lines: string[]) => fs.writeFileSync(path.join(config, name), `${lines.join('\n')}\n`);
  file(
    'mailboxes',
    names.map((name) => `${name}@${LOCAL_DOMAIN} ${name}/`),
  );
  file('transport', [
    ...bouncingNames.map((name) => `${name}@${LOCAL_DOMAIN} bounce-${name}:`),
    `${options.relayDomain} smtp:[127.0.0.1]:${options.relayPort}`,
  ]);
  file(
    'copies',
    bouncingNames.map((name) => `${name}@${LOCAL_DOMAIN} ${name}-copy@${LOCAL_DOMAIN}`),
  );
  file('main.cf', [
    'compatibility_level = 3.6',
    `queue_directory = ${path.join(root, 'queue')}`,
    `data_directory = ${path.join(root, 'data')}`,
    `maillog_file = ${path.join(root, 'maillog')}`,
    `maillog_file_prefixes = ${root}`,
    'mail_owner = postfix',
    'setgid_group = postdrop',
    'myhostname = postfix.test',
    'mydomain = postfix.test',
    'myorigin = $myhostname',
    'mydestination =',
    'inet_interfaces = loopback-only',
    'inet_protocols = ipv4',
    'mynetworks = 127.0.0.0/8',
    'smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination',
    'disable_dns_lookups = yes',
    'smtpd_peername_lookup = no',
    'smtp_dns_support_level = disabled',
    'smtp_tls_security_level = none',
    'smtpd_tls_security_level = none',
    'alias_maps =',
    'alias_database =',
    `virtual_mailbox_domains = ${LOCAL_DOMAIN}`,
    `virtual_mailbox_base = ${maildirs}`,
    `virtual_mailbox_maps = texthash:${path.join(config, 'mailboxes')}`,
    `virtual_uid_maps = static:${postfixUid}`,
    `virtual_gid_maps = static:${postfixGid}`,
    `transport_maps = texthash:${path.join(config, 'transport')}`,
    `recipient_bcc_maps = texthash:${path.join(config, 'copies')}`,
    `delay_warning_time = ${Object.keys(deferring).length > 0 ? '1s' : '0'}`,
    'queue_run_delay = 1s',
    'minimal_backoff_time = 1s',
    'maximal_backoff_time = 2s',
  ]);
  // name, type, private (not for those other programs reach), unprivileged (not for the delivery
  // agents), chroot (never: no copy of /etc to keep), wakeup, process limit, command; as in Debian's master.cf.
  const PUBLIC = new Set(['pickup', 'cleanup', 'qmgr', 'flush', 'showq', 'postlog']);
  const PRIVILEGED = new Set(['local', 'virtual', ...bouncingNames.map((name) => `bounce-${name}`)]);
  const service = (name: string, type: string, command: string, limit = '-', wakeup = '-') =>
    `${name} ${type} ${type === 'inet' || PUBLIC.has(name) ? 'n' : '-'} ${PRIVILEGED.has(name) ? 'n' : '-'} n ${wakeup} ${limit} ${command}`;
  file('master.cf', [
    service(`127.0.0.1:${port}`, 'inet', 'smtpd'),
    service('pickup', 'unix', 'pickup', '1', '60'),
    service('cleanup', 'unix', 'cleanup', '0'),
    service('qmgr', 'unix', 'qmgr', '1', '300'),
    service('rewrite', 'unix', 'trivial-rewrite'),
    service('bounce', 'unix', 'bounce', '0'),
    service('defer', 'unix', 'bounce', '0'),
    service('trace', 'unix', 'bounce', '0'),
    service('verify', 'unix', 'verify', '1'),
    service('flush', 'unix', 'flush', '0', '1000?'),
    service('proxymap', 'unix', 'proxymap'),
    service('smtp', 'unix', 'smtp'),
    service('relay', 'unix', 'smtp'),
    service('showq', 'unix', 'showq'),
    service('error', 'unix', 'error'),
    service('retry', 'unix', 'error'),
    service('discard', 'unix', 'discard'),
    service('local', 'unix', 'local'),
    service('virtual', 'unix', 'virtual'),
    service('anvil', 'unix', 'anvil', '1'),
    service('scache', 'unix', 'scache', '1'),
    service('postlog', 'unix-dgram', 'postlogd', '1'),
    // A mailbox that bounces or defers after acceptance: pipe(8) runs a command that fails (exit 69 for
    // good, 75 for now) and says why with an enhanced status code, which Postfix puts in its notice.
    ...failing.map(({ name, reason, exit }) => {
      const script = path.join(config, `bounce-${name}.sh`);
      fs.writeFileSync(script, `#!/bin/sh\ncat >/dev/null\necho '${reason.replace(/'/g, '')}'\nexit ${exit}\n`, { mode: 0o755 });
      return `${service(`bounce-${name}`, 'unix', 'pipe')}\n  flags=q user=nobody argv=${script}`;
    }),
  ]);
  const postfix = (...args: string[]) => execFileSync(POSTFIX, ['-c', config, ...args], { stdio: 'pipe' });
  const log = () => {
    try {
      return fs.readFileSync(path.join(root, 'maillog'), 'utf8');
    } catch {
      return '';
    }
  };
  try {
    postfix('start');
  } catch (error) {
    const said = `${(error as { stderr?: Buffer }).stderr?.toString() ?? ''}${log()}`;
    fs.rmSync(root, { recursive: true, force: true });
    throw new Error(`postfix -c ${config} start failed: ${said}`, { cause: error });
  }
  const stop = async () => {
    const pidFile = path.join(root, 'queue', 'pid', 'master.pid');
    const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').trim()) : undefined;
    try {
      postfix('stop');
    } catch {
      // already stopped
    }
    if (pid)
      await until(() => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      }, 'the test Postfix to stop');
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    await until(
      () =>
        new Promise<boolean>((resolve) => {
          const socket = net.connect(port, '127.0.0.1');
          socket.once('data', (data) => {
            socket.destroy();
            resolve(data.toString().startsWith('220'));
          });
          socket.once('error', () => resolve(false));
        }),
      'the test Postfix to answer',
    );
  } catch (error) {
    const said = log();
    await stop();
    throw new Error(`${(error as Error).message}\n${said}`, { cause: error });
  }
  return {
    url: `smtp://127.0.0.1:${port}`,
    delivered(name) {
      const folder = path.join(maildirs, name, 'new');
      if (!fs.existsSync(folder)) return [];
      // In the order they were delivered: a maildir's file names are not (same second, then a queue id).
      return fs
        .readdirSync(folder)
        .map((entry) => ({ file: path.join(folder, entry), at: fs.statSync(path.join(folder, entry)).mtimeMs }))
        .sort((a, b) => a.at - b.at || a.file.localeCompare(b.file))
        .map(({ file }) => fs.readFileSync(file, 'utf8'));
    },
    log,
    stop,
  };
}
