import { publishResponse } from '@/lib/publishing/endpoint';
import { services } from '@/lib/runtime';
import { settings } from '@/lib/settings';

// Run on every call: it acts on this moment (README, "Scheduling a post").
export const dynamic = 'force-dynamic';
// On a platform a call also sends the newsletter, for NEWSLETTER_BUDGET_SECONDS (40) at most: the
// function's limit is asked to be above that (README, "The newsletter").
export const maxDuration = 60;

export function GET(request: Request) {
  return publishResponse(request, services(), settings());
}
