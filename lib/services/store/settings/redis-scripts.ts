import { luaScript } from '../../../redis/lua';

export const GET_SETTING = luaScript({ keys: ['setting'] }, `return redis.call('GET', setting)`);

export const SET_SETTING = luaScript({ keys: ['setting'], args: ['value'] }, `return redis.call('SET', setting, value)`);

/** 1 when the setting was absent and now holds `value`, 0 when it was already set (and is left as it was). */
export const CLAIM_SETTING = luaScript(
  { keys: ['setting'], args: ['value'] },
  `if redis.call('SET', setting, value, 'NX') then return 1 end
return 0`,
);
