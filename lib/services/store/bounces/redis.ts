import type { ScriptRunner } from '../../../redis/lua';
import { SUSPEND_AFTER_REJECTIONS } from '../newsletter/types';
import { hashFields } from '../redis-hash';
import { ISSUE, LAST_BY_ADDRESS, RECORD, SEND_COUNTS } from './redis-scripts';
import { BOUNCE_TOKEN_MS, type AddressBounce, type BounceKind, type BounceStore, type SendBounces } from './types';

export function redisBounces(run: ScriptRunner): BounceStore {
  return {
    async issue(targets) {
      if (targets.length === 0) return;
      await run(ISSUE, {
        keys: { tokenPrefix: 'bounce-token:' },
        args: {
          targets: JSON.stringify(targets.map((target) => ({ h: target.tokenHash, e: target.email, s: target.slug, m: target.mailId }))),
          ttlMs: BOUNCE_TOKEN_MS,
        },
      });
    },

    async record({ tokenHash, reportId, kind, detail, now, soft }) {
      const [matched, email, slug, action] = (await run(RECORD, {
        keys: {
          token: `bounce-token:${tokenHash}`,
          reports: 'bounce:reports',
          softPrefix: 'bounce:soft:',
          rejections: 'newsletter:rejections',
          subscriberPrefix: 'subscriber:',
          confirmTokenPrefix: 'confirm-token:',
          counts: 'bounce:counts',
          last: 'bounce:last',
          mailPrefix: 'mail:',
        },
        args: { reportId, kind, detail: detail.slice(0, 500), now, softLimit: soft.limit, softWindowMs: soft.windowMs, suspendAfter: SUSPEND_AFTER_REJECTIONS },
      })) as [number, string?, string?, string?];
      if (Number(matched) !== 1) return { matched: false };
      return {
        matched: true,
        email: String(email),
        ...(slug ? { slug } : {}),
        action: action as 'suspended' | 'counted' | 'unsubscribed' | 'duplicate',
      };
    },

    async sendCounts() {
      const counts: Record<string, SendBounces> = {};
      for (const [field, value] of Object.entries(hashFields(await run(SEND_COUNTS, { keys: { counts: 'bounce:counts' } })))) {
        const [slug = '', kind] = field.split('\n');
        const entry = (counts[slug] ??= { hard: 0, soft: 0, complaints: 0 });
        if (kind === 'complaint') entry.complaints = Number(value);
        else if (kind === 'hard' || kind === 'soft') entry[kind] = Number(value);
      }
      return counts;
    },

    async lastByAddress() {
      return Object.entries(hashFields(await run(LAST_BY_ADDRESS, { keys: { last: 'bounce:last' } })))
        .map(([email, value]): AddressBounce => {
          const { k, d, t } = JSON.parse(value) as { k: BounceKind; d: string; t: number };
          return { email, kind: k, detail: d, at: t };
        })
        .sort((a, b) => a.at - b.at || a.email.localeCompare(b.email));
    },
  };
}
