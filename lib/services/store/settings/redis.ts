import type { ScriptRunner } from '../../../redis/lua';
import { CLAIM_SETTING, GET_SETTING, SET_SETTING } from './redis-scripts';
import type { SettingsStore } from './types';

export function redisSettings(run: ScriptRunner): SettingsStore {
  return {
    async get(key) {
      const value = await run(GET_SETTING, { keys: { setting: `setting:${key}` } });
      return typeof value === 'string' ? value : undefined;
    },

    async set(key, value) {
      await run(SET_SETTING, { keys: { setting: `setting:${key}` }, args: { value } });
    },

    async claim(key, value) {
      return Number(await run(CLAIM_SETTING, { keys: { setting: `setting:${key}` }, args: { value } })) === 1;
    },
  };
}
