import type { Element, Root } from 'hast';
import type { Plugin } from 'unified';
import { visit } from 'unist-util-visit';

/** hast properties that hold one URL. */
const URL_PROPERTIES = ['href', 'src', 'poster', 'cite', 'longDesc'] as const;

const HAS_SCHEME = /^[a-z][a-z\d+.-]*:/i;

/** One URL resolved against `base` as a browser would; an already absolute one is kept as written. Undefined when it does not resolve. */
export function resolveUrl(value: string, base: string): string | undefined {
  const trimmed = value.trim();
  if (HAS_SCHEME.test(trimmed)) return trimmed;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return undefined;
  }
}

/**
 * A srcset candidate list (`a.png 1x, b.png 2x`): each candidate's URL
 * resolved, its descriptor kept. hast holds it as a list (the HTML parser splits
 * it at commas) although its type says string; both are read.
 */
function resolveSrcset(value: unknown, base: string): string | undefined {
  const candidates = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [];
  const resolved: string[] = [];
  for (const candidate of candidates) {
    const [url, ...descriptor] = candidate.trim().split(/\s+/);
    if (!url) continue;
    const absolute = resolveUrl(url, base);
    if (absolute) resolved.push([absolute, ...descriptor].join(' '));
  }
  return resolved.length > 0 ? resolved.join(', ') : undefined;
}

/**
 * Every URL in the tree (links, images, sources, citations) made absolute
 * against `base`, the page the HTML belongs to, so HTML read away from the site
 * (a feed reader) points where the page's own links point. A URL that cannot be
 * resolved is dropped rather than left relative.
 */
export const absoluteUrls: Plugin<[string], Root> = (base) => (tree) => {
  visit(tree, 'element', (node: Element) => {
    const { properties } = node;
    for (const name of URL_PROPERTIES) {
      const value = properties[name];
      if (typeof value !== 'string') continue;
      const absolute = resolveUrl(value, base);
      if (absolute === undefined) delete properties[name];
      else properties[name] = absolute;
    }
    if (properties.srcSet !== undefined && properties.srcSet !== null) {
      const srcSet = resolveSrcset(properties.srcSet, base);
      if (srcSet === undefined) delete properties.srcSet;
      else properties.srcSet = srcSet;
    }
  });
};
