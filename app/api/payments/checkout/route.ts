import { checkout } from '@/lib/forms/checkout';
import { writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('checkout', {
  action: checkout,
  accepted: () => ({ ok: true, status: 200, body: { url: '/pricing' }, redirect: '/pricing' }),
});
