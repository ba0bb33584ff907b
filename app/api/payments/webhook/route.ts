import { handleStripeWebhook } from '@/lib/payments/webhook';
import { services } from '@/lib/runtime';

export function POST(request: Request) {
  return handleStripeWebhook(request, services());
}
