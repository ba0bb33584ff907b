import { sitemapUrls, sitemapXml } from '@/lib/agents/sitemap';
import { publishedPosts } from '@/lib/content';
import { newestChange } from '@/lib/content/dates';
import { xmlResponse } from '@/lib/http/responses';

export const dynamic = 'force-static';

export function GET() {
  return xmlResponse(sitemapXml(sitemapUrls()), 'application/xml', { lastModified: newestChange(publishedPosts()), signal: true });
}
