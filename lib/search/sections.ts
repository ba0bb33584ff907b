import GithubSlugger from 'github-slugger';
import { markdownToPlainText } from './plain-text';

/** A part of a post's text: before its first `##`/`###` heading (heading null), or from one such heading to the next. */
export type Section = {
  /** The heading as a reader sees it, or null for the text before the first heading. */
  heading: string | null;
  /** The heading's id on the rendered page (its `#anchor`), or null. */
  id: string | null;
  /** Where the section starts in the post's plain text. */
  start: number;
};

export type SectionedText = { text: string; sections: Section[] };

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;

/**
 * The plain text of a markdown body (markdownToPlainText), cut where each
 * `##` or `###` heading starts, with the id the rendered page gives that
 * heading: rehype-slug's, which is github-slugger's over every heading of the
 * page in order (a repeated heading gets `-1`, `-2`), from the heading's text.
 * Only ATX headings (`## …`) outside fenced code count; the site's posts use
 * no other kind.
 */
export function markdownToSections(markdown: string): SectionedText {
  const slugger = new GithubSlugger();
  const parts: { heading: string | null; id: string | null; lines: string[] }[] = [{ heading: null, id: null, lines: [] }];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const opening = FENCE.exec(line)?.[1];
    if (fence) {
      if (opening && opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening) fence = undefined;
    } else if (opening) {
      fence = opening;
    } else {
      const heading = ATX_HEADING.exec(line);
      if (heading) {
        const text = markdownToPlainText(heading[2] ?? '');
        const id = slugger.slug(text);
        const level = heading[1]!.length;
        if (level === 2 || level === 3) {
          parts.push({ heading: text, id, lines: [line] });
          continue;
        }
      }
    }
    parts[parts.length - 1]!.lines.push(line);
  }
  let text = '';
  const sections: Section[] = [];
  for (const part of parts) {
    const plain = markdownToPlainText(part.lines.join('\n'));
    if (!plain && part.heading === null) continue;
    if (text) text += ' ';
    sections.push({ heading: part.heading, id: part.id, start: text.length });
    text += plain;
  }
  return { text, sections };
}
