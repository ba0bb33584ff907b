import { sitemapUrls, sitemapXml } from '@/lib/sitemap/xml';
import { lastModified } from '@/lib/content/source';
import { xmlResponse } from '@/lib/http/responses';
import { settings } from '@/lib/settings';

export const dynamic = 'force-static';

export function GET() {
  return xmlResponse(sitemapXml(sitemapUrls(settings().site)), 'application/xml', { lastModified: lastModified(), signal: true });
}
