'use client';

import { useSyncExternalStore, type ReactElement } from 'react';
import { isTheme, THEME_STORAGE_KEY, THEMES, type Theme } from '@/lib/theme';

const CHANGE_EVENT = 'lectern:themechange';
const LABELS: Record<Theme, string> = { system: 'Auto', light: 'Light', dark: 'Dark' };

/** Half a disc (follow the system), a sun, a moon: drawn with attributes only, no inline styles. */
const ICONS: Record<Theme, ReactElement> = {
  system: (
    <>
      <circle cx="8" cy="8" r="6.25" fill="none" stroke="currentColor" strokeWidth="1.5" />
      <path d="M8 1.75a6.25 6.25 0 0 1 0 12.5z" fill="currentColor" />
    </>
  ),
  light: (
    <>
      <circle cx="8" cy="8" r="3" fill="currentColor" />
      <path
        d="M8 .75v2M8 13.25v2M.75 8h2M13.25 8h2M2.87 2.87l1.42 1.42M11.71 11.71l1.42 1.42M2.87 13.13l1.42-1.42M11.71 4.29l1.42-1.42"
        stroke="currentColor"
        strokeWidth="1.5"
        strokeLinecap="round"
      />
    </>
  ),
  dark: <path d="M13.5 10.2A6 6 0 0 1 5.8 2.5a6 6 0 1 0 7.7 7.7z" fill="currentColor" />,
};

function current(): Theme {
  const value = document.documentElement.getAttribute('data-theme');
  return isTheme(value) ? value : 'system';
}

function apply(theme: Theme, store: boolean): void {
  document.documentElement.setAttribute('data-theme', theme);
  if (store) {
    try {
      if (theme === 'system') localStorage.removeItem(THEME_STORAGE_KEY);
      else localStorage.setItem(THEME_STORAGE_KEY, theme);
    } catch {
      // Storage refused (private mode, quota): the choice lasts for this page only.
    }
  }
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

function subscribe(onChange: () => void): () => void {
  // A choice made in another tab applies here too.
  const onStorage = (event: StorageEvent) => {
    if (event.key === THEME_STORAGE_KEY || event.key === null) apply(isTheme(event.newValue) ? event.newValue : 'system', false);
  };
  window.addEventListener(CHANGE_EVENT, onChange);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener(CHANGE_EVENT, onChange);
    window.removeEventListener('storage', onStorage);
  };
}

/**
 * Auto, light or dark, as three small icon buttons named by their (visually
 * hidden) labels. The highlighted button follows `data-theme` in CSS, so it
 * is right from the first frame; `aria-pressed` follows once React has hydrated.
 */
export function ThemeSwitch() {
  const theme = useSyncExternalStore(subscribe, current, () => 'system' as Theme);
  return (
    <div className="theme-switch" role="group" aria-label="Colour theme">
      {THEMES.map((option) => (
        <button
          key={option}
          type="button"
          data-value={option}
          aria-pressed={theme === option}
          title={`${LABELS[option]} theme`}
          onClick={() => apply(option, true)}
        >
          <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
            {ICONS[option]}
          </svg>
          <span className="visually-hidden">{LABELS[option]}</span>
        </button>
      ))}
    </div>
  );
}
