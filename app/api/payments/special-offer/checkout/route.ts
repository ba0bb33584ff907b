import { specialOfferCheckout } from '@/lib/forms/checkout';
import { writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('specialOfferCheckout', {
  action: specialOfferCheckout,
  accepted: () => ({ ok: true, status: 200, body: { url: '/pricing' }, redirect: '/pricing' }),
});
