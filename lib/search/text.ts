/** Folding and cutting text into words, the same for what is indexed, what is searched and what is marked. */

const MARKS = /\p{M}/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_CHARS = /[^\x00-\x7f]/gu;
const UPPER_ASCII = /[A-Z]+/g;

/** Each non-ASCII character's fold, made once: the set of characters a site uses is small. */
const folds = new Map<string, string>();

function foldChar(char: string): string {
  let folded = folds.get(char);
  if (folded === undefined) {
    const candidate = char.normalize('NFD').replace(MARKS, '').toLowerCase();
    // A fold that changes the length (ß stays, İ would grow) keeps the character, so indexes stay put.
    folded = candidate.length === char.length ? candidate : char.toLowerCase().length === char.length ? char.toLowerCase() : char;
    if (folds.size < 4096) folds.set(char, folded);
  }
  return folded;
}

/**
 * Lowercase without accents (`Café` → `cafe`), keeping every character at its
 * index, so a word found in the folded text is at the same place in the text.
 * Two regular-expression passes, not one step per character: a page folds up
 * to 50 long texts per search.
 */
export function foldText(text: string): string {
  const lowered = text.replace(UPPER_ASCII, (run) => run.toLowerCase());
  return NON_ASCII.test(lowered) ? lowered.replace(NON_ASCII_CHARS, foldChar) : lowered;
}

const WORD = /[\p{L}\p{N}]+/gu;
export const WORD_CHAR = /[\p{L}\p{N}]/u;

/** The words of `text` once folded: runs of letters and digits. */
export function words(text: string): string[] {
  return foldText(text).match(WORD) ?? [];
}

/**
 * English words too common to tell posts apart: indexed, each would match
 * nearly every post, and a search would weigh every post it matches.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for from has have if in into is it its of on or so than that the their then there these this to was were will with'.split(' '),
);

/** The words a query searches for: folded, without stop words, each once, in the order given. */
export function queryWords(query: string): string[] {
  return [...new Set(words(query).filter((word) => !STOP_WORDS.has(word)))];
}
