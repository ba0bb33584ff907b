/** Folding and cutting text into words, the same for what is indexed, what is searched and what is marked. */

const MARKS = /\p{M}/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const UPPER_ASCII = /[A-Z]+/g;
/** Letters that may carry an accent or a case that lowercasing left: Latin with its extensions, Greek, Cyrillic. */
const FOLDABLE = /[\u00c0-\u024f\u0370-\u04ff\u1e00-\u1fff]/g;

/** Each foldable character's fold, made once: the set of characters a site uses is small. */
const folds = new Map<string, string>();

function foldChar(char: string): string {
  let folded = folds.get(char);
  if (folded === undefined) {
    const candidate = char.normalize('NFD').replace(MARKS, '').toLowerCase();
    // A fold that changes the length (İ would grow) keeps the character, so indexes stay put.
    folded = candidate.length === char.length ? candidate : char.toLowerCase().length === char.length ? char.toLowerCase() : char;
    if (folds.size < 4096) folds.set(char, folded);
  }
  return folded;
}

/**
 * Lowercase without accents (`Café` → `cafe`), keeping every character at its
 * index, so a word found in the folded text is at the same place in the text.
 * Whole-string operations, not one step per character: a page folds up to 50
 * long texts per search, and only accented letters (not quotes or dashes)
 * are looked at one by one.
 */
export function foldText(text: string): string {
  const lowered = text.toLowerCase();
  if (!NON_ASCII.test(lowered)) return lowered;
  // Lowercasing never shrinks a text; where it grew it (İ), only ASCII is lowercased here and foldChar does the rest.
  const aligned = lowered.length === text.length ? lowered : text.replace(UPPER_ASCII, (run) => run.toLowerCase());
  return aligned.replace(FOLDABLE, foldChar);
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
