import type { Database } from '../sqlite-database';
import type { SettingsStore } from './types';

export function sqliteSettings(db: Database): SettingsStore {
  return {
    async get(key) {
      return db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(key)?.value;
    },

    async set(key, value) {
      db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
    },

    async claim(key, value) {
      return db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(key, value).changes === 1;
    },
  };
}
