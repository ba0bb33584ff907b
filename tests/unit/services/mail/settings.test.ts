import { describe, expect, it } from 'vitest';
import { parseEnv } from '@/lib/env';
import { mailSettings, mailSettingsFrom } from '@/lib/services/mail/settings';

const DAY = 24 * 60 * 60 * 1000;

describe('mail settings', () => {
  it('polls and first retries after 5 s and keeps sent mail 30 days by default', () => {
    expect(mailSettings({})).toEqual({ pollMs: 5000, retryBaseMs: 5000, retentionMs: 30 * DAY });
  });

  it('takes the values in milliseconds and whole days', () => {
    expect(mailSettingsFrom(parseEnv({ MAIL_POLL_MS: '250', MAIL_RETRY_BASE_MS: '1000', MAIL_RETENTION_DAYS: '0' }))).toEqual({
      pollMs: 250,
      retryBaseMs: 1000,
      retentionMs: 0,
    });
  });

  it('refuses a poll interval that is not a whole number of milliseconds (no polling every millisecond)', () => {
    for (const value of ['abc', '0', '-1', '2.5']) expect(() => mailSettings({ MAIL_POLL_MS: value })).toThrow(/MAIL_POLL_MS: must be/);
    expect(() => mailSettings({ MAIL_RETENTION_DAYS: '3651' })).toThrow(/MAIL_RETENTION_DAYS: must be at most 3650/);
  });
});
