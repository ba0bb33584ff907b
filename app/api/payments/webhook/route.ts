import { handleStripeWebhook } from '@/lib/forms/payments-webhook';

export function POST(request: Request) {
  return handleStripeWebhook(request);
}
