import { parse, parseFragment } from 'parse5';

type Node = { nodeName: string; attrs?: { name: string; value: string }[]; childNodes?: Node[]; content?: Node };

const URL_ATTRIBUTES = new Set(['href', 'src', 'poster', 'cite', 'longdesc']);

function walk(node: Node, visit: (node: Node) => void) {
  visit(node);
  for (const child of node.childNodes ?? []) walk(child, visit);
  if (node.content) walk(node.content, visit);
}

/** Every URL an HTML fragment holds in href, src, poster, cite, longdesc and each srcset candidate, read with a real HTML parser. */
export function urlsInHtml(html: string): string[] {
  const found: string[] = [];
  walk(parseFragment(html) as unknown as Node, (node) => {
    for (const { name, value } of node.attrs ?? []) {
      if (URL_ATTRIBUTES.has(name)) found.push(value);
      if (name === 'srcset') found.push(...value.split(',').map((candidate) => candidate.trim().split(/\s+/)[0] ?? ''));
    }
  });
  return found;
}

function attributes(node: Node): Record<string, string> {
  return Object.fromEntries((node.attrs ?? []).map(({ name, value }) => [name, value]));
}

/** The attributes of every `<tag>` element of an HTML document (inside `<head>` only, with `where: 'head'`), as a browser's parser sees them. */
export function elementsOf(html: string, tag: string, where: 'document' | 'head' = 'document'): Record<string, string>[] {
  let root = parse(html) as unknown as Node;
  if (where === 'head') walk(parse(html) as unknown as Node, (node) => node.nodeName === 'head' && (root = node));
  const found: Record<string, string>[] = [];
  walk(root, (node) => node.nodeName === tag && found.push(attributes(node)));
  return found;
}
