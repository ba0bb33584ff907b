import { pricingMarkdown } from '@/lib/feeds/pricing-md';
import { markdownPageResponse } from '@/lib/http/markdown-page';
import { settings } from '@/lib/settings';

// Also the target of proxy.ts for `/pricing` negotiated to markdown.
export const dynamic = 'force-static';

export function GET() {
  return markdownPageResponse(pricingMarkdown(), '/pricing', settings().build.time);
}
