import { pricingMarkdown } from '@/lib/agents/pricing-md';
import { absoluteUrl } from '@/lib/config';
import { linkHeader } from '@/lib/http/links';
import { markdownResponse } from '@/lib/http/responses';

export const dynamic = 'force-static';

export function GET() {
  return markdownResponse(pricingMarkdown(), { headers: { Link: linkHeader(absoluteUrl('/pricing'), 'canonical', 'text/html') } });
}
