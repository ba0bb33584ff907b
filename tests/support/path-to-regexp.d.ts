/** The path-to-regexp Next.js ships compiled; vercel.json's `source` patterns use its syntax. */
declare module 'next/dist/compiled/path-to-regexp' {
  export function pathToRegexp(path: string): RegExp;
}
