import { app } from '@/lib/content';
import { problem } from '@/lib/http/problem';
import { redirectResponse } from '@/lib/http/responses';

export async function GET(_request: Request, { params }: RouteContext<'/api/apps/[slug]/download'>) {
  const { slug } = await params;
  const found = app(slug);
  return found ? redirectResponse(found.download) : problem('not-found', 'No desktop app has this slug.');
}
