import type { ReactElement } from 'react';

/** Open Graph images: 1200×630, the size every social site crops from. */
export const OG_SIZE = { width: 1200, height: 630 };

const colors = { bg: '#fbfaf7', fg: '#1d1e22', muted: '#5b5e66', accent: '#1d5fbf', border: '#dedbd2' };

/**
 * The card drawn into a page's Open Graph image (components/og-image.ts draws it at build time,
 * with fonts and emoji shipped from npm: nothing is fetched).
 */
export function OgCard({ kicker, title, footer }: { kicker: string; title: string; footer: string }): ReactElement {
  const size = title.length > 90 ? 54 : title.length > 50 ? 64 : 76;
  return (
    <div style={{ width: '100%', height: '100%', display: 'flex', background: colors.bg, color: colors.fg }}>
      <div style={{ width: 24, height: '100%', background: colors.accent }} />
      <div style={{ flex: 1, display: 'flex', flexDirection: 'column', justifyContent: 'space-between', padding: '64px 72px' }}>
        <div style={{ display: 'flex', fontSize: 30, color: colors.accent, letterSpacing: 1 }}>{kicker}</div>
        <div style={{ display: 'flex', fontSize: size, lineHeight: 1.15, letterSpacing: -1, maxHeight: 400, overflow: 'hidden' }}>{title}</div>
        <div style={{ display: 'flex', borderTop: `2px solid ${colors.border}`, paddingTop: 24, fontSize: 28, color: colors.muted }}>{footer}</div>
      </div>
    </div>
  );
}
