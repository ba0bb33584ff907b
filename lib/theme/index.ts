/**
 * The reader's colour theme: `light`, `dark`, or `system` (follow the
 * operating system's prefers-color-scheme). The choice is kept in
 * localStorage and shown as `data-theme` on `<html>`, which the CSS reads.
 */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_STORAGE_KEY = 'theme';

export function isTheme(value: unknown): value is Theme {
  return typeof value === 'string' && (THEMES as readonly string[]).includes(value);
}

/**
 * Runs in `<head>` before the page is painted, so a stored choice applies to the
 * first frame (no flash of the other theme). Without JavaScript the attribute is
 * never set: the page follows the system and the theme switch stays hidden.
 * Its SHA-256 is in each page's Content-Security-Policy, like every inline script.
 */
export const THEME_SCRIPT = `(function(){var t='system';try{var s=localStorage.getItem('${THEME_STORAGE_KEY}');if(s==='light'||s==='dark')t=s}catch(e){}document.documentElement.setAttribute('data-theme',t)})()`;
