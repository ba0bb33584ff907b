/**
 * Work kept between builds in the process's build cache folder (`.next/cache`): the markdown
 * pipeline's results and the posts' cards. lib/content/kept.ts says how; the runtime makes the
 * process's from the build's settings (lib/runtime/site.ts).
 */
export { kept } from '../runtime/site';
