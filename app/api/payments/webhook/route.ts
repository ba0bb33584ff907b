import { handleStripeWebhook } from '@/lib/payments/webhook';
import { services } from '@/lib/runtime';
import { settings } from '@/lib/settings';

export function POST(request: Request) {
  return handleStripeWebhook(request, services(), settings());
}
