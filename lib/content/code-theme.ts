import githubDark from '@shikijs/themes/github-dark';
import githubLight from '@shikijs/themes/github-light';

/**
 * Code colours as classes. Shiki writes each token's colours as an inline
 * `style` attribute, which a Content-Security-Policy without 'unsafe-inline'
 * refuses (and page hashes cannot cover markup inserted on client navigation).
 * So the highlighter's styles become classes (`sl-d73a49` for a light colour,
 * `sd-f97583` for a dark one, `sl-i` for italic...), and app/code-theme.css,
 * generated from the same two themes, gives each class its colour.
 *
 * The colours are the themes' own, darkened or lightened where needed until
 * they reach WCAG AA contrast (4.5:1) on the site's code background.
 */
export const CODE_THEMES = { light: 'github-light', dark: 'github-dark' } as const;

/** `--code-bg` in app/globals.css, light and dark (a unit test keeps them equal). */
export const CODE_BACKGROUNDS = { light: '#f4f3ef', dark: '#1c1d22' } as const;

const MIN_CONTRAST = 4.5;

type Mode = 'light' | 'dark';
type ThemeJson = { colors?: Record<string, string>; tokenColors?: { settings?: { foreground?: string } }[] };
const themes: Record<Mode, ThemeJson> = { light: githubLight as ThemeJson, dark: githubDark as ThemeJson };
const PREFIX: Record<Mode, string> = { light: 'sl', dark: 'sd' };

function normalizeHex(color: string): string | undefined {
  const hex = color.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(hex)) return hex;
  if (/^#[0-9a-f]{3}$/.test(hex)) return `#${[...hex.slice(1)].map((digit) => digit + digit).join('')}`;
  return undefined;
}

/** Every foreground colour a theme can give a token, plus its default text colour. */
export function themeColors(mode: Mode): string[] {
  const theme = themes[mode];
  const colors = new Set<string>();
  for (const color of [theme.colors?.['editor.foreground'], ...(theme.tokenColors ?? []).map((rule) => rule.settings?.foreground)]) {
    const hex = color === undefined ? undefined : normalizeHex(color);
    if (hex) colors.add(hex);
  }
  return [...colors].sort();
}

function channels(hex: string): [number, number, number] {
  return [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16)) as [number, number, number];
}

function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((value) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

function mix(hex: string, toward: number, amount: number): string {
  return `#${channels(hex)
    .map((value) =>
      Math.round(value + (toward - value) * amount)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** The colour itself when it reads well on the code background, else the nearest step toward black (light) or white (dark) that does. */
export function readableColor(hex: string, mode: Mode): string {
  const background = CODE_BACKGROUNDS[mode];
  for (let step = 0; step <= 50; step += 1) {
    const candidate = mix(hex, mode === 'light' ? 0 : 255, step / 50);
    if (contrast(candidate, background) >= MIN_CONTRAST) return candidate;
  }
  return mode === 'light' ? '#000000' : '#ffffff';
}

const FONT_STYLE: Record<string, string> = { italic: 'i' };
const FONT_WEIGHT: Record<string, string> = { bold: 'b' };
const DECORATION: Record<string, string> = { underline: 'u', 'line-through': 's' };

/** `underline line-through` → `us`: one class per combination shiki can write. */
function decorationKey(value: string): string | undefined {
  const keys = value.split(/\s+/).map((word) => DECORATION[word]);
  if (keys.length === 0 || keys.some((key) => key === undefined)) return undefined;
  return [...new Set(keys)].sort().reverse().join('');
}

/**
 * The classes for one shiki `style` attribute. Declarations without a class
 * (the themes' backgrounds, which the site's CSS sets) are dropped.
 */
export function codeClasses(style: string): string[] {
  const classes: string[] = [];
  for (const declaration of style.split(';')) {
    const match = /^\s*--shiki-(light|dark)(?:-(font-style|font-weight|text-decoration))?\s*:\s*(.+?)\s*$/.exec(declaration);
    if (!match) continue;
    const [, mode = 'light', property, value = ''] = match;
    const prefix = PREFIX[mode as Mode];
    if (property === undefined) {
      const hex = normalizeHex(value);
      if (hex && themeColors(mode as Mode).includes(hex)) classes.push(`${prefix}-${hex.slice(1)}`);
    } else if (property === 'font-style' && FONT_STYLE[value]) classes.push(`${prefix}-${FONT_STYLE[value]}`);
    else if (property === 'font-weight' && FONT_WEIGHT[value]) classes.push(`${prefix}-${FONT_WEIGHT[value]}`);
    else if (property === 'text-decoration') {
      const key = decorationKey(value);
      if (key) classes.push(`${prefix}-${key}`);
    }
  }
  return classes;
}

/** The stylesheet app/code-theme.css: a custom property per class, read by the `.shiki` rules in app/globals.css. */
export function codeThemeCss(): string {
  const lines = [
    `/* Generated by scripts/code-theme.ts from shiki's ${CODE_THEMES.light} and ${CODE_THEMES.dark} themes; do not edit. */`,
    `/* Colours adjusted to ${MIN_CONTRAST}:1 contrast on the code background (${CODE_BACKGROUNDS.light} light, ${CODE_BACKGROUNDS.dark} dark). */`,
  ];
  // A line per theme for its colours and one for its font styles: a stylesheet read by the browser, not by people.
  for (const mode of ['light', 'dark'] as const) {
    const prefix = PREFIX[mode];
    lines.push(
      themeColors(mode)
        .map((hex) => `.${prefix}-${hex.slice(1)} { --shiki-${mode}: ${readableColor(hex, mode)}; }`)
        .join(' '),
    );
    lines.push(
      [
        `.${prefix}-i { --shiki-${mode}-font-style: italic; }`,
        `.${prefix}-b { --shiki-${mode}-font-weight: bold; }`,
        `.${prefix}-u { --shiki-${mode}-text-decoration: underline; }`,
        `.${prefix}-s { --shiki-${mode}-text-decoration: line-through; }`,
        `.${prefix}-us { --shiki-${mode}-text-decoration: underline line-through; }`,
      ].join(' '),
    );
  }
  return `${lines.join('\n')}\n`;
}
