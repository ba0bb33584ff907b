import { env, parseEnv, type EnvSource } from './env';

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

/** The deployment settings from the environment (or from `source`); every bad value is named in one error. */
export function deployment(source?: EnvSource): Deployment {
  const settings = source ? parseEnv(source) : env();
  return { trustProxy: settings.TRUST_PROXY, clientIpHeader: settings.CLIENT_IP_HEADER, platform: settings.PLATFORM_MODE };
}

/**
 * What a platform host lacks that the settings still ask for: such hosts run
 * the site in short-lived instances with no disk kept between requests, so the
 * embedded store (SQLite) and the mail outbox folder would lose what they hold,
 * and no lectern server records client addresses. Empty when all is well.
 */
export function platformProblems(source?: EnvSource): string[] {
  const settings = source ? parseEnv(source) : env();
  if (!settings.PLATFORM_MODE) return [];
  const problems: string[] = [];
  if (!(settings.UPSTASH_REDIS_REST_URL && settings.UPSTASH_REDIS_REST_TOKEN) && !settings.REDIS_URL) {
    problems.push(
      'the store needs UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (or REDIS_URL): the embedded SQLite file would live on a disk the host does not keep',
    );
  }
  if (!settings.SMTP_URL) problems.push('mail needs SMTP_URL: the outbox folder would live on a disk the host does not keep');
  if (settings.MAIL_OUTBOX_DIR) problems.push('MAIL_OUTBOX_DIR cannot be used: the host keeps no disk; set SMTP_URL instead');
  if (!settings.CLIENT_IP_HEADER && settings.TRUST_PROXY === 0) {
    problems.push(
      "the rate limits need the client address: set CLIENT_IP_HEADER to the header your platform's edge overwrites with it (x-real-ip on Vercel), or TRUST_PROXY to the number of proxies that append to X-Forwarded-For",
    );
  }
  return problems;
}
