import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { isTheme, THEME_SCRIPT, THEME_STORAGE_KEY, THEMES } from '@/lib/theme';

/** Runs the first-paint script against a stand-in document and storage; returns the data-theme it set. */
function firstPaint(stored: string | null | Error): string | undefined {
  const attributes: Record<string, string> = {};
  const localStorage = {
    getItem(key: string) {
      if (stored instanceof Error) throw stored;
      return key === THEME_STORAGE_KEY ? stored : null;
    },
  };
  const document = { documentElement: { setAttribute: (name: string, value: string) => (attributes[name] = value) } };
  runInNewContext(THEME_SCRIPT, { localStorage, document });
  return attributes['data-theme'];
}

describe('the colour theme', () => {
  it('knows three choices', () => {
    expect(THEMES).toEqual(['system', 'light', 'dark']);
    expect(THEMES.every(isTheme)).toBe(true);
    for (const other of ['Dark', '', 'blue', null, 1]) expect(isTheme(other)).toBe(false);
  });

  it('applies a stored light or dark choice before the first paint', () => {
    expect(firstPaint('dark')).toBe('dark');
    expect(firstPaint('light')).toBe('light');
  });

  it('follows the system when nothing, or something else, is stored, or storage is refused', () => {
    expect(firstPaint(null)).toBe('system');
    expect(firstPaint('<script>')).toBe('system');
    expect(firstPaint(new Error('SecurityError: storage is disabled'))).toBe('system');
  });
});
