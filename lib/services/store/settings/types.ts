/** Small values the site keeps between runs (such as the newest date submitted to IndexNow). */
export interface SettingsStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  /**
   * Sets `key` to `value` only where it has no value yet, atomically: true for the one caller
   * that set it, false for every other (on any instance sharing the store). What must happen
   * once per thing across instances and restarts claims it first (a post going live).
   */
  claim(key: string, value: string): Promise<boolean>;
}
