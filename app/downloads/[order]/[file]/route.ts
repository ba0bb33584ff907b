import { clock } from '@/lib/runtime/site';
import { decideDownload, fileResponse } from '@/lib/downloads/serve';
import { services } from '@/lib/runtime';
import { settings } from '@/lib/settings';

/**
 * A download link where lectern's server does not answer it (a platform host, development):
 * the same check, and the file streamed from disk. lectern's server answers these paths itself
 * (lib/server/downloads.ts), before Next.
 */
async function answer(request: Request): Promise<Response> {
  const decided = await decideDownload(
    {
      method: request.method,
      url: new URL(request.url),
      range: request.headers.get('range') ?? undefined,
      ifRange: request.headers.get('if-range') ?? undefined,
      accept: request.headers.get('accept') ?? undefined,
    },
    { store: services().store, downloads: settings().downloads, contentDir: settings().site.contentDir, now: clock() },
  );
  return decided instanceof Response ? decided : fileResponse(decided, request.method);
}

export const dynamic = 'force-dynamic';
export const GET = answer;
export const HEAD = answer;
