import type { Mark } from '@/lib/search';

/** `text` with each mark in `<mark>`: plain text nodes, which React escapes. */
export function MarkedText({ text, marks }: { text: string; marks: readonly Mark[] }) {
  const parts: React.ReactNode[] = [];
  let at = 0;
  for (const { start, end } of marks) {
    if (start < at || end <= start) continue;
    if (start > at) parts.push(text.slice(at, start));
    parts.push(<mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}
