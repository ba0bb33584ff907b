import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ContentError } from '../content/load';
import { messagePage } from '../http/html';

/**
 * The development server's answer while the content folder does not load: the
 * build's own message, every problem of every file, as a page for a browser
 * and as plain text for anything else. It goes away on the first request
 * after the files are fixed.
 */
export function sendContentError(req: IncomingMessage, res: ServerResponse, error: ContentError): void {
  const wantsHtml = /text\/html/i.test(req.headers.accept ?? '');
  const [summary = '', ...lines] = error.message.split('\n');
  const body = wantsHtml
    ? messagePage({
        title: 'The content has problems',
        paragraphs: [summary, 'The build would fail with the same message. Fix the files and reload; `npm run check` lists the problems too.'],
        list: lines.map((line) => line.trim()),
        back: req.url ?? '/',
      })
    : `${error.message}\n`;
  res.writeHead(500, {
    'Content-Type': wantsHtml ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
