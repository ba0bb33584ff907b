import { notImplemented, writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('checkout', {
  action: () => notImplemented('Checkout'),
  accepted: () => ({ ok: true, status: 202, body: { status: 'accepted' }, redirect: '/' }),
});
