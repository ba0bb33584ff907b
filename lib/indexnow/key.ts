import { env } from '../env';

/** The IndexNow key (INDEXNOW_KEY, checked with the other settings), served at `/{key}.txt`; undefined when unset. */
export function indexNowKey(): string | undefined {
  return env().INDEXNOW_KEY;
}
