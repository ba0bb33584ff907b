/** One page of a list of posts: its items, its number (from 1) and how many pages the list fills. */
export type Page<T> = { items: readonly T[]; number: number; count: number };

/**
 * How many pages `total` items fill, `perPage` a page (POSTS_PER_PAGE): at least one (a list with
 * nothing in it is one empty page).
 */
export function pageCount(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/** Page `number` (from 1) of a list, or undefined when there is no such page. */
export function pageOf<T>(list: readonly T[], number: number, perPage: number): Page<T> | undefined {
  const count = pageCount(list.length, perPage);
  if (!Number.isSafeInteger(number) || number < 1 || number > count) return undefined;
  return { items: list.slice((number - 1) * perPage, number * perPage), number, count };
}

/** The numbers of a list's later pages, 2 to the last: the ones under `{base}/page/{n}` (page 1 is the list's own URL). */
export function laterPageNumbers(total: number, perPage: number): number[] {
  return Array.from({ length: pageCount(total, perPage) - 1 }, (_, index) => index + 2);
}

/** The path of page `number` of the list at `base`: `base` itself for page 1, else `{base}/page/{number}`. */
export function pagePath(base: string, number: number): string {
  return number === 1 ? base : `${base}/page/${number}`;
}

/**
 * A later page's number as its URL segment spells it: decimal digits without a
 * leading zero, 2 or more. Anything else (`1`, `01`, `2.0`, `x`) is no page.
 */
export function laterPageNumber(segment: string): number | undefined {
  if (!/^[1-9][0-9]{0,8}$/.test(segment)) return undefined;
  const number = Number(segment);
  return number >= 2 ? number : undefined;
}

/**
 * The page numbers a pagination nav shows: the first, the last, and up to
 * `around` either side of the current one; `null` stands for the numbers left out.
 */
export function pageWindow(current: number, count: number, around = 2): (number | null)[] {
  const shown: (number | null)[] = [];
  for (let number = 1; number <= count; number++) {
    if (number === 1 || number === count || Math.abs(number - current) <= around) shown.push(number);
    else if (shown.at(-1) !== null) shown.push(null);
  }
  return shown;
}
