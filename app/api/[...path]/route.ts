import { services } from '@/lib/runtime';
import { settings } from '@/lib/settings';
import { writeRouteHandlers } from '@/lib/write-routes/front-door';

// Every write route of lib/write-routes/registry.ts at its own path; the read routes under
// /api/ have route files of their own, which Next prefers to this one. Each request is handed
// the process's services and settings.
export const { POST, GET, PUT, PATCH, DELETE, OPTIONS } = writeRouteHandlers(services, settings);
