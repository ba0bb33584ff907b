/** How many results a search gives unless asked (`limit`), and at most. */
export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 50;
