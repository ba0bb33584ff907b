import { checkHealth, healthResponse } from '@/lib/services/health';
import { services } from '@/lib/runtime';

// Asked afresh on every request: the answer is about this moment.
export const dynamic = 'force-dynamic';

export async function GET() {
  return healthResponse(await checkHealth(() => services().store));
}
