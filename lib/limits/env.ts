import { z } from 'zod';

const limitsEnvSchema = z.object({
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'REDIS_URL must be a redis:// or rediss:// URL' }).optional(),
  UPSTASH_REDIS_REST_URL: z.url({ protocol: /^https?$/ }).optional(),
  UPSTASH_REDIS_REST_TOKEN: z.string().min(1).optional(),
  /** Scales every window of the limits table; for tests that cannot wait ten minutes. */
  RATE_LIMIT_WINDOW_SCALE: z.coerce.number().positive().max(1).default(1),
  /** How long a limit decision may wait for Redis before memory decides. */
  RATE_LIMIT_REDIS_TIMEOUT_MS: z.coerce.number().int().positive().max(5000).default(250),
});

export function limitsEnv() {
  const parsed = limitsEnvSchema.safeParse(Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== '')));
  if (!parsed.success) throw new Error(`Invalid environment:\n${parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n')}`);
  const env = parsed.data;
  if (Boolean(env.UPSTASH_REDIS_REST_URL) !== Boolean(env.UPSTASH_REDIS_REST_TOKEN)) {
    throw new Error('Invalid environment:\n  UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together');
  }
  return env;
}
