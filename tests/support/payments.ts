import Stripe from 'stripe';
import type { ReceivedMail } from './smtp';
import { request } from './client';

const stripe = new Stripe('sk_test_local');

/** A Stripe event posted to the webhook with a valid signature (the SDK's test header, as Stripe signs). */
export function signedEvent(baseUrl: string, secret: string, event: object) {
  const payload = JSON.stringify(event);
  return request(baseUrl, '/api/payments/webhook', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret }) },
    body: payload,
  });
}

/** A paid checkout.session.completed for a product, named after its payment intent. */
export function paidCheckout(product: string, buyer: string, paymentIntent: string) {
  return {
    id: `evt_${paymentIntent}`,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: `cs_${paymentIntent}`,
        object: 'checkout.session',
        payment_status: 'paid',
        amount_total: 2900,
        currency: 'eur',
        customer_details: { email: buyer, name: 'Buyer' },
        payment_intent: paymentIntent,
        metadata: { product },
      },
    },
  };
}

/** The download links of a mail, as paths on the site (the mail names SITE_URL's host). */
export function downloadLinks(mail: ReceivedMail): string[] {
  return [...(mail.text ?? '').matchAll(/https?:\/\/\S+?(\/downloads\/[\w-]+\/\d+\?expires=\d+&signature=[\w-]+)/g)].map((match) => match[1]!);
}
