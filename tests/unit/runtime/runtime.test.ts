import { createHook } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { createRuntime, createServices, serviceParts, type Part } from '@/lib/runtime';
import { mailThread } from '@/lib/newsletter/mail-thread';
import { startSmtp } from '../../support/smtp';

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-runtime-'));
afterAll(() => fs.rmSync(data, { recursive: true, force: true }));

/** A part that writes what happens to it in `events`; `fails` makes its start throw. */
function part(name: string, events: string[], options: { fails?: boolean; startMs?: number } = {}): Part {
  return {
    name,
    async start() {
      events.push(`start ${name}`);
      if (options.startMs) await new Promise((resolve) => setTimeout(resolve, options.startMs));
      if (options.fails) throw new Error(`${name} is broken`);
    },
    quiesce: () => void events.push(`quiesce ${name}`),
    async stop() {
      await Promise.resolve();
      events.push(`stop ${name}`);
    },
  };
}

/**
 * Timers, sockets, threads and the other lasting resources made from now on and not yet ended
 * (async_hooks: made at `init`, ended at `destroy`), by kind; unref'd timers too, which
 * process.getActiveResourcesInfo() leaves out.
 */
/** The kinds of resource that last until closed: timers, sockets and servers, threads and their ports, child processes, watchers. */
const LASTING = new Set([
  'Timeout',
  'Immediate',
  'TCPWRAP',
  'TCPSERVERWRAP',
  'PIPEWRAP',
  'PIPESERVERWRAP',
  'UDPWRAP',
  'WORKER',
  'MESSAGEPORT',
  'PROCESSWRAP',
  'SIGNALWRAP',
  'FSEVENTWRAP',
  'STATWATCHER',
  'TLSWRAP',
]);

function resources() {
  const live = new Map<number, string>();
  let own = false;
  const hook = createHook({
    init(id, type) {
      if (!own && LASTING.has(type)) live.set(id, type);
    },
    destroy: (id) => void live.delete(id),
  }).enable();
  return {
    kinds: () => [...live.values()].sort(),
    /** Waits `ms` on a timer of the test's own, which is not counted. */
    wait(ms: number) {
      own = true;
      try {
        return new Promise((resolve) => setTimeout(resolve, ms));
      } finally {
        own = false;
      }
    },
    disable: () => hook.disable(),
  };
}

describe('createRuntime', () => {
  it('starts its parts in their order, each once started the one before, and stops them in the reverse order', async () => {
    const events: string[] = [];
    const runtime = createRuntime([part('store', events), part('worker', events, { startMs: 20 }), part('scheduler', events)]);
    expect(runtime.parts).toEqual(['store', 'worker', 'scheduler']);
    expect(events).toEqual([]);
    await Promise.all([runtime.start(), runtime.start()]);
    expect(events).toEqual(['start store', 'start worker', 'start scheduler']);
    runtime.quiesce();
    await Promise.all([runtime.stop(), runtime.stop()]);
    expect(events.slice(3)).toEqual(['quiesce store', 'quiesce worker', 'quiesce scheduler', 'stop scheduler', 'stop worker', 'stop store']);
  });

  it('stops what had started, in reverse, when a part cannot start, and says which part', async () => {
    const events: string[] = [];
    const runtime = createRuntime([part('store', events), part('worker', events), part('search', events, { fails: true }), part('scheduler', events)]);
    await expect(runtime.start()).rejects.toThrow('search could not start: search is broken');
    expect(events).toEqual(['start store', 'start worker', 'start search', 'stop worker', 'stop store']);
    await runtime.stop();
    expect(events).toHaveLength(5);
  });

  it('starts no later part once a stop is asked for during the start', async () => {
    const events: string[] = [];
    const runtime = createRuntime([part('store', events), part('search', events, { startMs: 30 }), part('scheduler', events)]);
    const starting = runtime.start();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await runtime.stop();
    await starting;
    expect(events).toEqual(['start store', 'start search', 'stop search', 'stop store']);
  });

  it('goes on stopping past a part that fails to stop, and says so', async () => {
    const events: string[] = [];
    const warnings: string[] = [];
    const stuck: Part = { name: 'stuck', start: () => undefined, stop: () => Promise.reject(new Error('socket gone')) };
    const runtime = createRuntime([part('store', events), stuck, part('scheduler', events)], { warn: (line: string) => warnings.push(line) });
    await runtime.start();
    await runtime.stop();
    expect(events).toEqual(['start store', 'start scheduler', 'stop scheduler', 'stop store']);
    expect(warnings).toEqual([expect.stringContaining('stuck did not stop cleanly (socket gone')]);
  });
});

describe("the services' parts", () => {
  it('start nothing when made, send what a previous run left once started, and leave no timer, socket or thread after the stop', async () => {
    const folder = path.join(data, 'site');
    const settings = parseSettings({ DATA_DIR: folder, MAIL_POLL_MS: '50', NEWSLETTER_CHECK_MS: '50' });
    // Mail a previous run queued and did not send.
    const before = createServices(settings);
    await before.store.support.save({ id: randomUUID(), name: 'A', email: 'a@example.com', subject: 's', message: 'm', createdAt: Date.now() }, [
      { to: { address: 'owner@example.com' }, subject: 'Left by the last run', text: 'Left', html: '<p>Left</p>' },
    ]);
    await before.store.close();

    const made = resources();
    try {
      const services = createServices(settings);
      const runtime = createRuntime(serviceParts(services, settings));
      expect(runtime.parts).toEqual(['store', 'mail worker', 'newsletter', 'bounce readers']);
      // Made, not started: the mail worker and the newsletter exist, and neither sends nor keeps a timer.
      expect(services.mailWorker).toBeDefined();
      expect(services.newsletter).toBeDefined();
      await made.wait(120);
      expect(made.kinds()).toEqual([]);
      const outbox = path.join(folder, 'outbox');
      expect(fs.existsSync(outbox)).toBe(false);

      await runtime.start();
      for (let waited = 0; !(fs.existsSync(outbox) && fs.readdirSync(outbox).length > 0); waited += 20) {
        if (waited > 10_000) throw new Error('the mail left by the last run was not sent');
        await made.wait(20);
      }
      expect(fs.readFileSync(path.join(outbox, fs.readdirSync(outbox)[0]!), 'utf8')).toMatch(/^Subject: Left by the last run$/m);
      // Running: the mail worker's and the newsletter's timers.
      expect(made.kinds().filter((kind) => kind === 'Timeout').length).toBeGreaterThanOrEqual(2);

      await runtime.stop();
      await made.wait(50);
      expect(made.kinds()).toEqual([]);
    } finally {
      made.disable();
    }
  });

  it("over SMTP, start the newsletter's mail thread with the newsletter and leave nothing of it after the stop", async () => {
    const smtp = await startSmtp();
    const settings = parseSettings({ DATA_DIR: path.join(data, 'smtp-site'), SMTP_URL: smtp.url, NEWSLETTER_CHECK_MS: '50' });
    const made = resources();
    try {
      const services = createServices(settings, { mailThread });
      const runtime = createRuntime(serviceParts(services, settings));
      expect(services.newsletter).toBeDefined();
      await made.wait(50);
      expect(made.kinds()).not.toContain('WORKER');
      await runtime.start();
      expect(made.kinds()).toContain('WORKER');
      await runtime.stop();
      await made.wait(50);
      expect(made.kinds()).toEqual([]);
    } finally {
      made.disable();
      await smtp.close();
    }
  });
});
