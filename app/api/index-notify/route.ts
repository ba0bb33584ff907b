import { notImplemented, writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('indexNotify', {
  action: () => notImplemented('IndexNow submission'),
  accepted: () => ({ ok: true, status: 202, body: { status: 'accepted' }, redirect: '/' }),
});
