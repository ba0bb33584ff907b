import { describe, expect, it, vi } from 'vitest';

vi.hoisted(async () => (await import('../../support/write-routes')).useWriteRouteSettings());
// What a request's `after` is handed: run by the test, as Next would run it after the response.
const afterResponse = vi.hoisted(() => [] as (() => unknown)[]);
vi.mock('next/server', async (original) => ({ ...(await original<typeof import('next/server')>()), after: (task: () => unknown) => afterResponse.push(task) }));

const { paymentsNow, sendQueuedMailNow, storeNow } = await import('@/lib/write-routes/services');
const { services } = await import('@/lib/services');
const { outboxMail } = await import('../../support/write-routes');

describe("the actions' services, loaded when first used", () => {
  it("are the process's own: the store the services built", async () => {
    expect(await storeNow()).toBe(services().store);
  });

  it('have no payments without Stripe keys', async () => {
    expect(await paymentsNow()).toBeUndefined();
  });

  it('send the mail an action has just queued, and ask the request to wait for the sending', async () => {
    const mail = { to: { address: 'owner@example.test' }, subject: 'Queued by an action', text: 'Hello.', html: '<p>Hello.</p>' };
    await (
      await storeNow()
    ).support.save({ id: 'm1', name: 'Ada', email: 'ada@example.test', subject: 'Hi', message: 'Hello.', createdAt: Date.now() }, [mail]);
    await sendQueuedMailNow();
    expect(afterResponse).toHaveLength(1);
    await afterResponse[0]?.();
    expect((await outboxMail()).map((sent) => sent.subject)).toEqual(['Queued by an action']);
  });
});
