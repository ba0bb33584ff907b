import { afterAll, inject } from 'vitest';
import { freePort, startSite, type RunningSite } from './site';

/**
 * For a contract test file: starts servers of the file's own on the contract build (with
 * settings of their own) and stops them all after the file.
 */
export function contractSites(defaults: Record<string, string> = {}) {
  const sites: RunningSite[] = [];
  afterAll(async () => {
    await Promise.all(sites.map((running) => running.stop()));
  });
  return async (options: { extraEnv?: Record<string, string>; nextStart?: boolean } = {}): Promise<RunningSite> => {
    const started = await startSite({
      contentDir: inject('contentDir'),
      distDir: inject('distDir'),
      siteUrl: inject('siteUrl'),
      port: await freePort(),
      nextStart: options.nextStart,
      extraEnv: { ...defaults, ...options.extraEnv },
    });
    sites.push(started);
    return started;
  };
}
