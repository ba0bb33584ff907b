/** The part of madge's API (the `madge` package, also `npm run cycles`) tests/unit/layout.test.ts uses. */
declare module 'madge' {
  type Result = {
    /** Each file (relative to baseDir) and the files it imports. */
    obj(): Record<string, string[]>;
    /** Each import cycle, as the files it passes. */
    circular(): string[][];
  };
  export default function madge(paths: string | string[], config: { baseDir?: string; fileExtensions?: string[]; tsConfig?: string }): Promise<Result>;
}
