import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAddress, postJson, request } from '../support/client';
import { startNginx, type RunningNginx } from '../support/nginx';
import { startRedis } from '../support/redis';
import { freePort, startSite, type RunningSite } from '../support/site';
import { startSmtp } from '../support/smtp';

/**
 * A deploy as the README describes it: two instances on one Redis behind the shipped nginx
 * configuration, restarted one after the other (SIGTERM, then a new start on the same port)
 * while readers and forms keep arriving. Nothing may fail, no accepted form may be lost, and
 * every mail goes out exactly once.
 */
describe('a rolling restart behind nginx under steady load', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let nginx: RunningNginx;
  const ports: [number, number] = [0, 0];
  const instances: RunningSite[] = [];
  const retired: RunningSite[] = [];

  const start = async (port: number) =>
    startSite({
      contentDir: inject('contentDir'),
      distDir: inject('distDir'),
      siteUrl: inject('siteUrl'),
      port,
      extraEnv: {
        TRUST_PROXY: '1',
        REDIS_URL: redis.url,
        SMTP_URL: smtp.url,
        SUPPORT_EMAIL: 'owner@example.com',
        MAIL_POLL_MS: '200',
        SHUTDOWN_GRACE_MS: '8000',
        PREWARM: '0',
      },
    });

  beforeAll(async () => {
    redis = await startRedis();
    smtp = await startSmtp();
    ports[0] = await freePort();
    ports[1] = await freePort();
    instances.push(...(await Promise.all(ports.map(start))));
    nginx = await startNginx(ports);
  });

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all([...instances, ...retired].map((instance) => instance.stop()));
    await smtp?.close();
    await redis?.stop();
  });

  it('fails no request, loses no form and sends every mail once', async () => {
    const failures: string[] = [];
    const accepted: string[] = [];
    let running = true;
    let sent = 0;

    // Readers: pages, lists and feeds, each with a query of its own so nginx asks an instance.
    const reader = async (id: number) => {
      const paths = ['/', '/blog', '/api/blog', '/llms.txt', '/api/rss', '/index.md'];
      for (let i = 0; running; i++) {
        const path = `${paths[i % paths.length]}?reader=${id}-${i}`;
        try {
          const answer = await request(nginx.http, path);
          if (answer.status !== 200) failures.push(`GET ${path}: ${answer.status}`);
        } catch (error) {
          failures.push(`GET ${path}: ${String(error)}`);
        }
      }
    };
    // Forms: a support message every few hundred milliseconds, each from an address of its own (each has its own budget).
    const writer = async (id: number) => {
      for (let i = 0; running; i++) {
        const token = `w${id}-${i}-${Date.now()}`;
        sent += 1;
        try {
          const answer = await postJson(
            nginx.http,
            '/api/support',
            { name: 'Reader', email: `${token}@example.com`, subject: token, message: `Message ${token}` },
            { from: freshAddress() },
          );
          if (answer.status === 202) accepted.push(token);
          else failures.push(`POST /api/support ${token}: ${answer.status} ${answer.body.slice(0, 200)}`);
        } catch (error) {
          failures.push(`POST /api/support ${token}: ${String(error)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    };
    const load = [...[0, 1, 2].map(reader), ...[0, 1].map(writer)];

    const restart = async (index: 0 | 1) => {
      const old = instances[index]!;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const exited = new Promise<number | null>((resolve) => old.process.once('exit', (code) => resolve(code)));
      old.process.kill('SIGTERM');
      expect(await exited).toBe(0);
      retired.push(old);
      instances[index] = await start(ports[index]);
      // nginx counts a refused connection as a failure of that server for 10 s (fail_timeout):
      // the next restart waits until both are back in its rotation.
      await new Promise((resolve) => setTimeout(resolve, 11_000));
    };
    await restart(0);
    await restart(1);
    running = false;
    await Promise.all(load);

    expect(failures).toEqual([]);
    expect(accepted.length).toBe(sent);
    expect(accepted.length).toBeGreaterThan(20);
    // Every accepted message reaches the owner once, and its sender's receipt once.
    await expect.poll(() => smtp.messages.length, { timeout: 60_000, interval: 250 }).toBeGreaterThanOrEqual(accepted.length * 2);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const toOwner = smtp.messages.filter((mail) => mail.subject?.startsWith('[Support] ')).map((mail) => mail.subject!.slice('[Support] '.length));
    expect(toOwner.sort()).toEqual([...accepted].sort());
    const receipts = smtp.messages.filter((mail) => !mail.subject?.startsWith('[Support] ')).flatMap((mail) => mail.envelopeTo);
    expect(receipts.sort()).toEqual(accepted.map((token) => `${token}@example.com`).sort());
  }, 180_000);
});
