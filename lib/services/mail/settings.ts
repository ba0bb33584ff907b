import { env, parseEnv, type Env, type EnvSource } from '../../env';

export type MailSettings = { pollMs: number; retryBaseMs: number; retentionMs: number };

/** The mail worker's settings in the units it uses. */
export function mailSettingsFrom(settings: Pick<Env, 'MAIL_POLL_MS' | 'MAIL_RETRY_BASE_MS' | 'MAIL_RETENTION_DAYS'>): MailSettings {
  return { pollMs: settings.MAIL_POLL_MS, retryBaseMs: settings.MAIL_RETRY_BASE_MS, retentionMs: settings.MAIL_RETENTION_DAYS * 24 * 60 * 60 * 1000 };
}

/** The mail worker's settings from the environment (or from `source`), validated: every bad value is named in one error. */
export function mailSettings(source?: EnvSource): MailSettings {
  return mailSettingsFrom(source ? parseEnv(source) : env());
}
