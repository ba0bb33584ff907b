import { publishResponse } from '@/lib/publishing/route';
import { services } from '@/lib/services';

// Run on every call: it acts on this moment (README, "Scheduling a post").
export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  return publishResponse(request, services());
}
