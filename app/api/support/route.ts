import { notImplemented, writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('support', {
  action: () => notImplemented('The support form'),
  accepted: () => ({ ok: true, status: 202, body: { status: 'accepted' }, redirect: '/' }),
});
