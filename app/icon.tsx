import { ImageResponse } from 'next/og';
import { site } from '@/lib/content';

export const size = { width: 64, height: 64 };
export const contentType = 'image/png';

/** The favicon: the site name's first letter, drawn at build time. */
export default function Icon() {
  const letter = site().name.trim().charAt(0).toUpperCase() || 'L';
  return new ImageResponse(
    <div
      style={{
        width: '100%',
        height: '100%',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        borderRadius: 14,
        background: '#1d5fbf',
        color: '#fbfaf7',
        fontSize: 44,
      }}
    >
      {letter}
    </div>,
    size,
  );
}
