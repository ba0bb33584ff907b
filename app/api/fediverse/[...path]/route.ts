import { platformFediverseResponse } from '@/lib/fediverse/route';
import { services } from '@/lib/runtime';
import { settings } from '@/lib/settings';

// The fediverse's URLs on a platform (PLATFORM_MODE), rewritten here by proxy.ts and next.config.ts (README, "On the fediverse").
export const dynamic = 'force-dynamic';
// An inbox post's activity is worked on after the answer, for 10 s at most (lib/fediverse/platform.ts).
export const maxDuration = 30;

const answer = (request: Request) => platformFediverseResponse(request, () => services().fediverse, settings());

export const GET = answer;
export const POST = answer;
