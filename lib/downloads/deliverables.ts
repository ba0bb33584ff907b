import path from 'node:path';
import { products, type Product } from '../content';
import { DELIVERABLES_FOLDER } from '../content/schema';

/** One file a buyer downloads: its path under the deliverables folder, the name it is saved as, and its type. */
export type Deliverable = { path: string; name: string; type: string };

const TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.epub': 'application/epub+zip',
  '.zip': 'application/zip',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.mp4': 'video/mp4',
  '.mp3': 'audio/mpeg',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
};

function deliverable(file: string): Deliverable {
  return { path: file, name: path.posix.basename(file), type: TYPES[path.posix.extname(file).toLowerCase()] ?? 'application/octet-stream' };
}

/**
 * What a buyer of a product downloads, in order and each once: its own files and, for an offer,
 * the files of every product it includes. A training has none (its buyer gets a booking).
 */
export function deliverablesOf(product: Product, all: readonly Product[] = products()): Deliverable[] {
  if (product.kind === 'training') return [];
  const included = product.kind === 'offer' ? product.includes.flatMap((slug) => all.filter((entry) => entry.slug === slug)) : [];
  const names = [...product.files, ...included.flatMap((entry) => (entry.kind === 'training' ? [] : entry.files))];
  return [...new Set(names)].map(deliverable);
}

/** Where a deliverable is on disk: under the content folder, never under public/. */
export function deliverableFile(contentDir: string, file: Deliverable): string {
  return path.join(contentDir, DELIVERABLES_FOLDER, file.path);
}
