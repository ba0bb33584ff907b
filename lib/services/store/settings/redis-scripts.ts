import { luaScript } from '../lua';

export const GET_SETTING = luaScript({ keys: ['setting'] }, `return redis.call('GET', setting)`);

export const SET_SETTING = luaScript({ keys: ['setting'], args: ['value'] }, `return redis.call('SET', setting, value)`);
