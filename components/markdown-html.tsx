/** HTML produced by lib/content/render.ts: sanitized there, so it is safe to insert. */
export function MarkdownHtml({ html, className = 'prose' }: { html: string; className?: string }) {
  return <div className={className} dangerouslySetInnerHTML={{ __html: html }} />;
}
