const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/**
 * A small, complete HTML page for answers to form posts made without
 * JavaScript (errors, the 429 wait). Every value is escaped.
 */
export function messagePage(options: { title: string; paragraphs: string[]; list?: string[]; back?: string }): string {
  const { title, paragraphs, list = [], back } = options;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>body{font:1.1rem/1.6 system-ui,sans-serif;max-width:38rem;margin:3rem auto;padding:0 1.25rem;color:#1d1e22;background:#fbfaf7}@media (prefers-color-scheme:dark){body{color:#e6e4df;background:#16171b}a{color:#8ab4f8}}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>
${paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join('\n')}
${list.length > 0 ? `<ul>${list.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>` : ''}
<p><a href="${escapeHtml(back ?? '/')}">Go back</a></p></main></body></html>
`;
}
