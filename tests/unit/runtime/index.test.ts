import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { createServices } from '@/lib/runtime';

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-services-'));
afterAll(() => fs.rmSync(data, { recursive: true, force: true }));

describe('createServices', () => {
  it('opens nothing until a service is used, then makes each once', async () => {
    const services = createServices(parseSettings({ DATA_DIR: data, STRIPE_SECRET_KEY: 'sk_test_1' }));
    expect(fs.existsSync(path.join(data, 'lectern.db'))).toBe(false);
    expect(services.store).toBe(services.store);
    expect(services.store.kind).toBe('sqlite');
    expect(fs.existsSync(path.join(data, 'lectern.db'))).toBe(true);
    expect(services.limiter).toBe(services.limiter);
    expect(services.limiter.name).toBe('memory');
    expect(services.payments).toBe(services.payments);
    expect(services.payments?.stripe).toBeDefined();
    await services.store.close();
  });

  it('runs the mail worker on its own store, writing to the outbox folder without SMTP_URL', async () => {
    const folder = path.join(data, 'worker');
    const services = createServices(parseSettings({ DATA_DIR: folder, MAIL_POLL_MS: '60000' }));
    await services.store.support.save({ id: randomUUID(), name: 'A', email: 'a@example.com', subject: 's', message: 'm', createdAt: Date.now() }, [
      { to: { address: 'owner@example.com' }, subject: 'Queued', text: 'Queued', html: '<p>Queued</p>' },
    ]);
    const worker = services.mailWorker;
    expect(services.mailWorker).toBe(worker);
    worker.kick();
    await worker.drain();
    worker.stop();
    const written = fs.readdirSync(path.join(folder, 'outbox'));
    expect(written).toHaveLength(1);
    expect(fs.readFileSync(path.join(folder, 'outbox', written[0]!), 'utf8')).toMatch(/^Subject: Queued$/m);
    await services.store.close();
  });

  it('has no payments without a Stripe key', () => {
    expect(createServices(parseSettings({ DATA_DIR: path.join(data, 'no-stripe') })).payments).toBeUndefined();
  });

  it('sends the mail a request has just queued, asking the request to wait for the sending', async () => {
    const folder = path.join(data, 'queued');
    // What a request's `after` is handed: run here, as Next runs it after the response.
    const afterResponse: (() => Promise<void>)[] = [];
    const services = createServices(parseSettings({ DATA_DIR: folder, MAIL_POLL_MS: '60000' }), { afterResponse: (task) => afterResponse.push(task) });
    await services.store.support.save({ id: 'm1', name: 'Ada', email: 'ada@example.test', subject: 'Hi', message: 'Hello.', createdAt: Date.now() }, [
      { to: { address: 'owner@example.test' }, subject: 'Queued by an action', text: 'Hello.', html: '<p>Hello.</p>' },
    ]);
    services.mail.sendQueued();
    expect(afterResponse).toHaveLength(1);
    await afterResponse[0]?.();
    services.mailWorker.stop();
    const written = fs.readdirSync(path.join(folder, 'outbox'));
    expect(written).toHaveLength(1);
    expect(fs.readFileSync(path.join(folder, 'outbox', written[0]!), 'utf8')).toMatch(/^Subject: Queued by an action$/m);
    await services.store.close();
  });
});

describe('services', () => {
  it('is one set per process, whichever copy of the module asks', async () => {
    vi.stubEnv('DATA_DIR', path.join(data, 'process'));
    const first = await import('@/lib/runtime');
    vi.resetModules();
    const second = await import('@/lib/runtime');
    expect(second.services).not.toBe(first.services);
    expect(second.services()).toBe(first.services());
    expect(second.services().limiter).toBe(first.services().limiter);
    vi.unstubAllEnvs();
  });
});
