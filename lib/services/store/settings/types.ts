/** Small values the site keeps between runs (such as the newest date submitted to IndexNow). */
export interface SettingsStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}
