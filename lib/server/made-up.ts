import { clock } from '../runtime/site';
import { madeUpValue } from '../content/made-up';
import type { Variant } from '../http/negotiate';

/**
 * A made-up value under a dynamic segment (a slug, tag, page number, sitemap file or app the build
 * did not make, or that is not live now), judged as proxy.ts judges it (lib/content/made-up.ts). Every such value of one kind gets the same answer from Next, through the
 * proxy: its not-found page, a card's 404, a problem or the markdown 404. So lectern's server has Next answer the first of each kind (`key`) and answers
 * every later one from that answer, without Next: going through Next cost each request some 25 KB
 * that outlived it long enough to grow the heap, about 25 MiB per 1,000 values (README, "Made-up
 * URLs cost nothing that stays"). The answers kept are a handful, however many values arrive.
 */
export type MadeUpAnswer = { key: string };
/** By path (canonical spelling) and the variant the read cache decided for the request (undefined where the path has one answer). */
export type MadeUpReads = (path: string, variant: Variant | undefined) => MadeUpAnswer | undefined;

export function madeUpReads(now: () => number = clock): MadeUpReads {
  return (path, variant) => {
    const unknown = madeUpValue(path, now());
    if (!unknown) return undefined;
    const key = `${unknown.answer} ${unknown.answer === 'problem' ? unknown.detail : ''} ${variant ?? 'one answer'}`;
    return { key };
  };
}
