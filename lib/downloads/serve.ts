import fs from 'node:fs';
import { Readable } from 'node:stream';
import { cacheHeaders } from '../http/cache';
import { messagePage } from '../http/html';
import { problem, problemTypes, type ProblemType } from '../http/problem';
import { productBySlug } from '../products';
import type { Settings } from '../settings';
import type { Store } from '../services/store/types';
import { deliverableFile, deliverablesOf, type Deliverable } from './deliverables';
import { linkKey, readLink } from './links';

/** Where a buyer asks for fresh links (the resend page). */
export const RESEND_PAGE = '/downloads';

/** The bytes of a file to send: the whole file (200) or one range of it (206). */
export type FileAnswer = { file: string; status: 200 | 206; start: number; end: number; headers: Record<string, string> };

export type DownloadDeps = { store: Store; downloads: Settings['downloads']; contentDir: string; now: number };

const REFUSALS: Record<string, { type: ProblemType; detail: string }> = {
  invalid: {
    type: 'download-link-invalid',
    detail: `This download link is not one this site made, or it was cut short. Copy the whole link from the mail, or ask for fresh links at ${RESEND_PAGE}.`,
  },
  expired: {
    type: 'download-link-expired',
    detail: `This download link has expired. Ask for fresh links at ${RESEND_PAGE}: they are mailed to the address you paid with.`,
  },
  'used-up': {
    type: 'download-limit-reached',
    detail: `This link has been used as often as a link may be. Ask for fresh links at ${RESEND_PAGE}: they are mailed to the address you paid with.`,
  },
  refunded: { type: 'order-refunded', detail: 'This order was refunded, so its files are no longer available. Questions? Write to us through /support.' },
};

/** A refusal a person reads (HTML) or a program does (problem+json), never stored by a cache. */
export function downloadRefusal(reason: keyof typeof REFUSALS | 'range', accept: string | null | undefined, size = 0): Response {
  const refusal =
    reason === 'range' ? { type: 'range-not-satisfiable' as const, detail: `The file has ${size} bytes; ask for a range within them.` } : REFUSALS[reason]!;
  const extra: Record<string, string> = reason === 'range' ? { 'Content-Range': `bytes */${size}` } : {};
  if (accept?.includes('text/html')) {
    const { status, title } = problemTypes[refusal.type];
    const page = messagePage({ title, paragraphs: [refusal.detail], back: RESEND_PAGE });
    return new Response(page, { status, headers: { ...cacheHeaders('write'), ...extra, 'Content-Type': 'text/html; charset=utf-8' } });
  }
  return problem(refusal.type, refusal.detail, { cache: 'write', headers: extra });
}

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` (one range; several are answered with the whole file), within `size`. */
export function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

function disposition(name: string): string {
  return `attachment; filename="${name.replace(/["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * A download request, checked: the link's signature and expiry (no store read for a bad one),
 * then in one store step its order (recorded, not refunded) and its count (a download that
 * starts at the first byte counts; a resumed one does not). The answer is a refusal, nginx's
 * internal redirect to the file (DOWNLOADS_ACCEL_PREFIX), or the bytes to send.
 */
export async function decideDownload(
  request: { method: string; url: URL; range: string | undefined; ifRange: string | undefined; accept: string | undefined },
  deps: DownloadDeps,
): Promise<Response | FileAnswer> {
  const { secret, limit, accelPrefix } = deps.downloads;
  if (!secret) return downloadRefusal('invalid', request.accept);
  const link = readLink(secret, request.url.pathname, request.url.searchParams);
  if (link === 'malformed' || link === 'tampered') return downloadRefusal('invalid', request.accept);
  if (deps.now >= link.expires) return downloadRefusal('expired', request.accept);
  const rangeHeader = request.range;
  const resumed = rangeHeader !== undefined && !/^bytes=0-/.test(rangeHeader.trim());
  const use = await deps.store.orders.useLink({
    order: link.order,
    link: linkKey(link),
    limit,
    count: request.method === 'GET' && !resumed,
    expires: link.expires,
  });
  if (use.outcome !== 'ok') return downloadRefusal(use.outcome === 'unknown' ? 'invalid' : use.outcome, request.accept);
  const product = productBySlug(use.order.product);
  const deliverable: Deliverable | undefined = product ? deliverablesOf(product)[link.file] : undefined;
  if (!deliverable) return downloadRefusal('invalid', request.accept);
  const file = deliverableFile(deps.contentDir, deliverable);
  const head = { ...cacheHeaders('write'), 'Content-Type': deliverable.type, 'Content-Disposition': disposition(deliverable.name) };
  if (accelPrefix) {
    const target = `${accelPrefix}${deliverable.path.split('/').map(encodeURIComponent).join('/')}`;
    return new Response(null, { status: 200, headers: { ...head, 'X-Accel-Redirect': target } });
  }
  const stat = await fs.promises.stat(file);
  const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  const whole = { ...head, ETag: etag, 'Accept-Ranges': 'bytes', 'Last-Modified': stat.mtime.toUTCString() };
  const rangeApplies = rangeHeader !== undefined && (request.ifRange === undefined || request.ifRange === etag);
  const range = rangeApplies ? parseRange(rangeHeader, stat.size) : undefined;
  if (range === 'unsatisfiable') return downloadRefusal('range', request.accept, stat.size);
  if (!range) return { file, status: 200, start: 0, end: stat.size - 1, headers: { ...whole, 'Content-Length': String(stat.size) } };
  return {
    file,
    status: 206,
    start: range.start,
    end: range.end,
    headers: { ...whole, 'Content-Length': String(range.end - range.start + 1), 'Content-Range': `bytes ${range.start}-${range.end}/${stat.size}` },
  };
}

/** A file answer as a Fetch response, streamed from disk (the platform route). */
export function fileResponse(answer: FileAnswer, method: string): Response {
  const body =
    method === 'HEAD' || answer.end < answer.start
      ? null
      : (Readable.toWeb(fs.createReadStream(answer.file, { start: answer.start, end: answer.end })) as ReadableStream<Uint8Array>);
  return new Response(body, { status: answer.status, headers: answer.headers });
}
