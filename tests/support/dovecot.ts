import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './site';
import { until } from './until';

/** Debian installs Dovecot in /usr/sbin, which is not on every user's PATH. */
const DOVECOT = fs.existsSync('/usr/sbin/dovecot') ? '/usr/sbin/dovecot' : 'dovecot';
/** The mail files belong to nobody: Dovecot never opens a mailbox as root. */
const NOBODY = { uid: 65534, gid: 65534 };

export type TestDovecot = { port: number; user: string; password: string; url: (mailbox?: string) => string; log: () => string; stop: () => Promise<void> };

/**
 * A Dovecot of the test's own (Debian's binaries, `dovecot -F -c <config>` with its configuration,
 * sockets and maildir in a temporary folder), never the system instance: IMAP without TLS on a free
 * loopback port, one user with a plain password.
 */
export async function startDovecot(): Promise<TestDovecot> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-dovecot-'));
  // Dovecot's login and internal processes run as its own users: they must pass through the folder.
  fs.chmodSync(root, 0o755);
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  fs.chownSync(home, NOBODY.uid, NOBODY.gid);
  const port = await freePort();
  const user = 'bounces';
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(path.join(root, 'users'), `${user}:{PLAIN}${password}::::::\n`, { mode: 0o644 });
  const config = path.join(root, 'dovecot.conf');
  const logFile = path.join(root, 'dovecot.log');
  fs.writeFileSync(
    config,
    `base_dir = ${path.join(root, 'run')}
state_dir = ${path.join(root, 'state')}
log_path = ${logFile}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain
first_valid_uid = ${NOBODY.uid}
passdb {
  driver = passwd-file
  args = ${path.join(root, 'users')}
}
userdb {
  driver = static
  args = uid=${NOBODY.uid} gid=${NOBODY.gid} home=${home}/%u
}
mail_location = maildir:~/Maildir
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
`,
  );
  fs.mkdirSync(path.join(home, user));
  fs.chownSync(path.join(home, user), NOBODY.uid, NOBODY.gid);
  const child = spawn(DOVECOT, ['-F', '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => {
    let file = '';
    try {
      file = fs.readFileSync(logFile, 'utf8');
    } catch {
      // not written yet
    }
    return `${output}${file}`;
  };
  try {
    await until(
      () =>
        new Promise<boolean>((resolve) => {
          if (child.exitCode !== null) throw new Error(`dovecot exited: ${log()}`);
          const socket = net.connect(port, '127.0.0.1');
          socket.once('data', (data) => {
            socket.destroy();
            resolve(data.toString().startsWith('* OK'));
          });
          socket.once('error', () => resolve(false));
        }),
      'the test Dovecot to answer',
    );
  } catch (error) {
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    user,
    password,
    url: (mailbox = 'INBOX') => `imap://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(mailbox)}`,
    log,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
