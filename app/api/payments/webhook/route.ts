import { handleStripeWebhook } from '@/lib/payments/webhook';

export function POST(request: Request) {
  return handleStripeWebhook(request);
}
