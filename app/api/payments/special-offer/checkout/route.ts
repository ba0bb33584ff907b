import { notImplemented, writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('specialOfferCheckout', {
  action: () => notImplemented('Special-offer checkout'),
  accepted: () => ({ ok: true, status: 202, body: { status: 'accepted' }, redirect: '/' }),
});
