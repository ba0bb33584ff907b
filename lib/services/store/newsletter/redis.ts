import type { ScriptRunner } from '../../../redis/lua';
import { hashFields } from '../redis-hash';
import {
  ACTIVE_SENDS,
  CLAIM,
  FINISH,
  MARK_FAILED,
  MARK_SENT,
  RECORD_BASELINE,
  RECORD_SKIPPED,
  RECORDED,
  REJECTIONS,
  RELEASE,
  RENEW,
  RETRY_FAILED,
  RETRY_LATER,
  SEND_MAIL,
  SENDS,
  START_SEND,
  STILL_WANTED,
} from './redis-scripts';
import { SUSPEND_AFTER_REJECTIONS, type NewsletterSend, type NewsletterStore } from './types';

const send = (slug: string) => `newsletter:send:${slug}`;
const queue = (slug: string) => `newsletter:queue:${slug}`;
const deliveries = (slug: string) => `newsletter:deliveries:${slug}`;
const claims = (slug: string) => `newsletter:claims:${slug}`;

function toSend(row: unknown): NewsletterSend {
  const [slug, state, started, finished, recipients, sent, waiting, failed, skipped] = (row as unknown[]).map(String);
  return {
    slug: slug ?? '',
    state: state === 'sent' ? 'sent' : 'sending',
    startedAt: Number(started),
    ...(finished ? { finishedAt: Number(finished) } : {}),
    recipients: Number(recipients),
    sent: Number(sent),
    waiting: Number(waiting),
    failed: Number(failed),
    skipped: Number(skipped),
  };
}

export function redisNewsletter(run: ScriptRunner): NewsletterStore {
  return {
    async recordBaseline(slugs, now) {
      return (
        (await run(RECORD_BASELINE, { keys: { baseline: 'newsletter:baseline', posts: 'newsletter:posts' }, args: { slugs: JSON.stringify(slugs), now } })) ===
        1
      );
    },

    async recorded(slugs) {
      // An empty Lua table encodes as `{}`, so an empty list comes back as an object.
      const result = await run(RECORDED, { keys: { baseline: 'newsletter:baseline', posts: 'newsletter:posts' }, args: { slugs: JSON.stringify(slugs) } });
      if (typeof result !== 'string') return undefined;
      const list = JSON.parse(result) as unknown;
      return new Set(Array.isArray(list) ? list.map(String) : []);
    },

    async recordSkipped(slug) {
      await run(RECORD_SKIPPED, { keys: { posts: 'newsletter:posts' }, args: { slug } });
    },

    async startSend({ slug, mail, now }) {
      const count = Number(
        await run(START_SEND, {
          keys: {
            posts: 'newsletter:posts',
            send: send(slug),
            queue: queue(slug),
            sends: 'newsletter:sends',
            active: 'newsletter:active',
            subscribers: 'subscribers',
            subscriberPrefix: 'subscriber:',
            rejections: 'newsletter:rejections',
          },
          args: { slug, mail, now, suspendAfter: SUSPEND_AFTER_REJECTIONS },
        }),
      );
      return count < 0 ? { started: false, recipients: 0 } : { started: true, recipients: count };
    },

    async activeSends() {
      return ((await run(ACTIVE_SENDS, { keys: { active: 'newsletter:active' } })) as unknown[]).map(String);
    },

    async sendMail(slug) {
      const mail = await run(SEND_MAIL, { keys: { send: send(slug) } });
      return typeof mail === 'string' ? mail : undefined;
    },

    async claim({ slug, now, leaseMs, tokenHashes, claim }) {
      if (tokenHashes.length === 0) return [];
      const rows = (await run(CLAIM, {
        keys: {
          queue: queue(slug),
          send: send(slug),
          deliveries: deliveries(slug),
          claims: claims(slug),
          subscriberPrefix: 'subscriber:',
          tokenPrefix: 'unsubscribe-token:',
        },
        args: { now, leaseMs, tokenHashes: JSON.stringify(tokenHashes), claim },
      })) as unknown[][];
      return rows.map((row) => {
        const [email, name, attempts, unsubscribeTokenHash] = row.map(String);
        return { slug, email: email ?? '', ...(name ? { name } : {}), attempts: Number(attempts), unsubscribeTokenHash: unsubscribeTokenHash ?? '', claim };
      });
    },

    async renew({ slug, claim, emails, now, leaseMs }) {
      if (emails.length === 0) return [];
      const held = await run(RENEW, { keys: { queue: queue(slug), claims: claims(slug) }, args: { emails: JSON.stringify(emails), claim, now, leaseMs } });
      return (held as unknown[]).map(String);
    },

    async stillWanted({ slug, email, claim, now, leaseMs }) {
      const wanted = await run(STILL_WANTED, {
        keys: { queue: queue(slug), send: send(slug), deliveries: deliveries(slug), claims: claims(slug), subscriber: `subscriber:${email}` },
        args: { email, claim, now, leaseMs },
      });
      return Number(wanted) === 1;
    },

    async markSent(slug, messages) {
      if (messages.length === 0) return [];
      const lost = await run(MARK_SENT, {
        keys: { queue: queue(slug), send: send(slug), deliveries: deliveries(slug), claims: claims(slug) },
        args: { messages: JSON.stringify(messages.map(({ email, claim }) => [email, claim])) },
      });
      return (lost as unknown[]).map(String);
    },

    async retryLater({ slug, email, claim, attempts, nextAttemptAt, error }) {
      await run(RETRY_LATER, {
        keys: { queue: queue(slug), deliveries: deliveries(slug), claims: claims(slug) },
        args: { email, claim, attempts, nextAttemptAt, lastError: error.slice(0, 500) },
      });
    },

    async markFailed({ slug, email, claim, attempts, now, error, permanent }) {
      return Number(
        await run(MARK_FAILED, {
          keys: { queue: queue(slug), send: send(slug), deliveries: deliveries(slug), claims: claims(slug), rejections: 'newsletter:rejections' },
          args: { email, claim, attempts, now, lastError: error.slice(0, 500), permanent: permanent ? '1' : '0' },
        }),
      );
    },

    async release({ slug, claim, emails, now }) {
      if (emails.length === 0) return;
      await run(RELEASE, { keys: { queue: queue(slug), claims: claims(slug) }, args: { emails: JSON.stringify(emails), claim, now } });
    },

    async finish(slug, now) {
      const row = await run(FINISH, {
        keys: { posts: 'newsletter:posts', send: send(slug), queue: queue(slug), active: 'newsletter:active' },
        args: { slug, now },
      });
      return Array.isArray(row) ? toSend(row) : undefined;
    },

    async sends() {
      const rows = (await run(SENDS, {
        keys: { posts: 'newsletter:posts', sends: 'newsletter:sends', sendPrefix: 'newsletter:send:', queuePrefix: 'newsletter:queue:' },
      })) as unknown[];
      return rows.map(toSend);
    },

    async rejections() {
      return Object.entries(hashFields(await run(REJECTIONS, { keys: { rejections: 'newsletter:rejections' } })))
        .map(([email, json]) => {
          const { c, e, t } = JSON.parse(json) as { c: number; e: string; t: number };
          return { email, count: c, lastError: e, at: t, suspended: c >= SUSPEND_AFTER_REJECTIONS };
        })
        .sort((a, b) => a.at - b.at || a.email.localeCompare(b.email));
    },

    async retryFailed(slug, now) {
      return Number(
        await run(RETRY_FAILED, {
          keys: {
            posts: 'newsletter:posts',
            send: send(slug),
            queue: queue(slug),
            deliveries: deliveries(slug),
            active: 'newsletter:active',
            rejections: 'newsletter:rejections',
          },
          args: { slug, now, suspendAfter: SUSPEND_AFTER_REJECTIONS },
        }),
      );
    },
  };
}
