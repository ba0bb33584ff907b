import type { Post } from '../content';
import type { SettingsStore } from '../services/store/settings/types';

/**
 * The moment up to which every live post's event has been claimed. The first run sets it to its
 * own moment: the posts live then are the site as it was, and none of them is announced.
 */
export const LIVE_THROUGH = 'published:through';
const claimKey = (slug: string) => `published:${slug}`;

export type LivePost = Pick<Post, 'slug' | 'dateMillis' | 'url'>;

/**
 * The posts of `live` (newest first) that went live since the last run on any instance, each
 * claimed in the store so that its event (IndexNow, the newsletter) happens once across
 * instances and restarts. The claim comes before the event: a crash between the two loses that
 * post's event rather than repeating it. An instance that was down claims at its start what
 * went live meanwhile.
 */
export async function claimWentLive(settings: Pick<SettingsStore, 'get' | 'set' | 'claim'>, live: readonly LivePost[], now: number): Promise<LivePost[]> {
  await settings.claim(LIVE_THROUGH, String(now));
  const through = Number(await settings.get(LIVE_THROUGH));
  const claimed: LivePost[] = [];
  for (const post of live) {
    if (post.dateMillis <= through) break;
    if (await settings.claim(claimKey(post.slug), String(now))) claimed.push(post);
  }
  // Every post up to the newest live one is claimed now (by this run or another): later runs start after it.
  const newest = live[0]?.dateMillis ?? 0;
  if (newest > through) await settings.set(LIVE_THROUGH, String(newest));
  return claimed;
}
