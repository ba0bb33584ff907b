import { z } from 'zod';

/**
 * How the site is deployed: what the operator declares about the network in
 * front of it (which client addresses to believe) and whether it runs on a
 * platform host (Next's own handler, no lectern server, no disk), validated once.
 */
export type Deployment = {
  /** Proxy hops in front whose `X-Forwarded-For` / `X-Forwarded-Proto` entries are believed (TRUST_PROXY). */
  trustProxy: number;
  /** A request header the platform's edge overwrites with the client's address (CLIENT_IP_HEADER), lower-cased. */
  clientIpHeader?: string;
  /** PLATFORM_MODE: Next.js runs without lectern's server, on a host that keeps no disk between requests. */
  platform: boolean;
};

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const hops = 'must be a whole number of proxy hops (0 or more)';

const deploymentEnvSchema = z.object({
  TRUST_PROXY: z.coerce.number({ error: hops }).int(hops).min(0, hops).default(0),
  CLIENT_IP_HEADER: z
    .string()
    .trim()
    .toLowerCase()
    .regex(HEADER_NAME, 'must be a header name, such as x-real-ip')
    .refine((name) => !name.startsWith('x-lectern-'), "must be a header your platform sets, not one of lectern's own")
    .optional(),
  PLATFORM_MODE: z.enum(['1', 'true', '0', 'false'], { error: "must be 1 (or true) to run without lectern's server, 0 (or false) otherwise" }).optional(),
});

export function invalidEnvironment(issues: z.core.$ZodIssue[]): Error {
  return new Error(`Invalid environment:\n${issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n')}`);
}

let cached: Deployment | undefined;

/** The deployment settings from the environment; every bad value is named in one error. */
export function deployment(env: Record<string, string | undefined> = process.env): Deployment {
  if (env === process.env && cached) return cached;
  const given = Object.fromEntries(Object.keys(deploymentEnvSchema.shape).flatMap((key) => (env[key] ? [[key, env[key]]] : [])));
  const parsed = deploymentEnvSchema.safeParse(given);
  if (!parsed.success) throw invalidEnvironment(parsed.error.issues);
  const { TRUST_PROXY, CLIENT_IP_HEADER, PLATFORM_MODE } = parsed.data;
  const settings: Deployment = { trustProxy: TRUST_PROXY, clientIpHeader: CLIENT_IP_HEADER, platform: PLATFORM_MODE === '1' || PLATFORM_MODE === 'true' };
  if (env === process.env) cached = settings;
  return settings;
}

/**
 * What a platform host lacks that the settings still ask for: such hosts run
 * the site in short-lived instances with no disk kept between requests, so the
 * embedded store (SQLite) and the mail outbox folder would lose what they hold,
 * and no lectern server records client addresses. Empty when all is well.
 */
export function platformProblems(env: Record<string, string | undefined> = process.env): string[] {
  const settings = deployment(env);
  if (!settings.platform) return [];
  const problems: string[] = [];
  if (!(env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) && !env.REDIS_URL) {
    problems.push('the store needs UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (or REDIS_URL): the embedded SQLite file would live on a disk the host does not keep');
  }
  if (!env.SMTP_URL) problems.push('mail needs SMTP_URL: the outbox folder would live on a disk the host does not keep');
  if (env.MAIL_OUTBOX_DIR) problems.push('MAIL_OUTBOX_DIR cannot be used: the host keeps no disk; set SMTP_URL instead');
  if (!settings.clientIpHeader && settings.trustProxy === 0) {
    problems.push("the rate limits need the client address: set CLIENT_IP_HEADER to the header your platform's edge overwrites with it (x-real-ip on Vercel), or TRUST_PROXY to the number of proxies that append to X-Forwarded-For");
  }
  return problems;
}
