import { z } from 'zod';

const whole = (unit: string) => z.coerce.number({ error: `must be a whole number of ${unit}` }).int(`must be a whole number of ${unit}`);

const mailEnvSchema = z.object({
  /** How often the outbox is checked. */
  MAIL_POLL_MS: whole('milliseconds').positive('must be more than 0').default(5000),
  /** The first retry delay; it doubles on each failure, up to 30 minutes. */
  MAIL_RETRY_BASE_MS: whole('milliseconds').positive('must be more than 0').default(5000),
  /** How long sent mail (bodies with their links) is kept; 0 deletes it once sent. */
  MAIL_RETENTION_DAYS: whole('days').min(0, 'must be 0 or more').max(3650, 'must be at most 3650').default(30),
});

export type MailSettings = { pollMs: number; retryBaseMs: number; retentionMs: number };

/** The mail worker's settings from the environment, validated: every bad value is named in one error. */
export function mailSettings(env: Record<string, string | undefined> = process.env): MailSettings {
  const parsed = mailEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([key, value]) => key.startsWith('MAIL_') && value !== '')));
  if (!parsed.success) throw new Error(`Invalid environment:\n${parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n')}`);
  const { MAIL_POLL_MS, MAIL_RETRY_BASE_MS, MAIL_RETENTION_DAYS } = parsed.data;
  return { pollMs: MAIL_POLL_MS, retryBaseMs: MAIL_RETRY_BASE_MS, retentionMs: MAIL_RETENTION_DAYS * 24 * 60 * 60 * 1000 };
}
