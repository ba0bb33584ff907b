import { sitemapPages, sitemapUrls, urlset } from '@/lib/sitemap/xml';
import { problem } from '@/lib/http/problem';
import { xmlResponse } from '@/lib/http/responses';
import { settings } from '@/lib/settings';

// Pages of a sitemap index, /sitemaps/{n}.xml; they exist only past 50,000 URLs.
export const dynamicParams = false;

export function generateStaticParams() {
  const pages = sitemapPages(sitemapUrls(settings().site));
  return pages.length > 1 ? pages.map((_, index) => ({ file: `${index + 1}.xml` })) : [{ file: '1.xml' }];
}

export async function GET(_request: Request, { params }: RouteContext<'/sitemaps/[file]'>) {
  const { file } = await params;
  const pages = sitemapPages(sitemapUrls(settings().site));
  const page = /^[1-9]\d*\.xml$/.test(file) && pages.length > 1 ? pages[Number.parseInt(file, 10) - 1] : undefined;
  return page ? xmlResponse(urlset(page), 'application/xml', { lastModified: settings().build.time }) : problem('not-found', 'No such sitemap page.');
}
