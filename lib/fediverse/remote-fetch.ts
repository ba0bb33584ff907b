import {
  getAuthenticatedDocumentLoader,
  getDocumentLoader,
  kvCache,
  preloadedContexts,
  UrlError,
  validatePublicUrl,
  type AuthenticatedDocumentLoaderFactory,
  type DocumentLoader,
  type DocumentLoaderFactory,
  type HttpMessageSignaturesSpec,
  type HttpMessageSignaturesSpecDeterminer,
  type KvStore,
} from '@fedify/fedify';
import { isBlockedHost } from './inbox-guard';

/** How long one fetch of a remote document (an actor, a key, an object) may take, redirects included. */
export const REMOTE_FETCH_TIMEOUT_MS = 10_000;

export type RemoteFetchOptions = {
  /** Where fetched documents are kept (Fedify's cache: five minutes each). */
  kv: KvStore;
  /** Tests only (FEDIVERSE_LOOPBACK): loopback and private addresses, and plain http, may be fetched. */
  allowPrivateAddress: boolean;
  blockedDomains: readonly string[];
  timeoutMs?: number;
};

/**
 * What Fedify fetches remote actors, keys and objects with (README, "On the fediverse": Safety).
 * Fedify's own loader already refuses private, loopback and link-local addresses (each redirect
 * too, after resolving the name) and keeps what it fetched in the store for five minutes; on top
 * of it, here:
 * - only `https:` (a document over plain http could be anyone's on the way);
 * - nothing of a blocked domain (FEDIVERSE_BLOCKED_DOMAINS), fetched or from the cache;
 * - a timeout: a server that does not answer within `timeoutMs` fails the fetch (Fedify has none).
 * Contexts Fedify carries with it (ActivityStreams, security) are never fetched.
 */
export function guardedLoader(loader: DocumentLoader, options: Omit<RemoteFetchOptions, 'kv'>): DocumentLoader {
  const timeoutMs = options.timeoutMs ?? REMOTE_FETCH_TIMEOUT_MS;
  return async (url, loadOptions) => {
    if (!(url in preloadedContexts)) {
      const target = new URL(url);
      if (target.protocol !== 'https:' && !options.allowPrivateAddress) throw new UrlError(`Only https: is fetched, not ${url}`);
      if (isBlockedHost(target.hostname, options.blockedDomains)) throw new UrlError(`${target.hostname} is blocked`);
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    return loader(url, { ...loadOptions, signal: loadOptions?.signal ? AbortSignal.any([loadOptions.signal, timeout]) : timeout });
  };
}

/**
 * The loaders Fedify is made with (its `documentLoaderFactory`, `contextLoaderFactory` and
 * `authenticatedDocumentLoaderFactory`): Fedify's own, cached in the store as Fedify caches them,
 * behind `guardedLoader`. Fedify refuses these factories beside its `allowPrivateAddress` option,
 * so the tests' loopback is decided here.
 */
export function remoteFetchLoaders(options: RemoteFetchOptions): {
  documentLoaderFactory: DocumentLoaderFactory;
  contextLoaderFactory: DocumentLoaderFactory;
  authenticatedDocumentLoaderFactory: AuthenticatedDocumentLoaderFactory;
} {
  const { allowPrivateAddress, kv } = options;
  // Which signature spec each server took last (Fedify's own determiner, under its own keys): a signed fetch knocks once.
  const SPECS = ['_fedify', 'httpMessageSignaturesSpec'] as const;
  const specDeterminer: HttpMessageSignaturesSpecDeterminer = {
    determineSpec: async (origin) => (await kv.get<HttpMessageSignaturesSpec>([...SPECS, origin])) ?? 'rfc9421',
    rememberSpec: (origin, spec) => kv.set([...SPECS, origin], spec),
  };
  const cached = (kind: 'object' | 'context'): DocumentLoaderFactory => {
    return (factoryOptions) =>
      guardedLoader(
        kvCache({ loader: getDocumentLoader({ ...factoryOptions, allowPrivateAddress }), kv, prefix: ['_fedify', 'remoteDocument'], kind }),
        options,
      );
  };
  return {
    documentLoaderFactory: cached('object'),
    contextLoaderFactory: cached('context'),
    authenticatedDocumentLoaderFactory: (identity, factoryOptions) =>
      guardedLoader(getAuthenticatedDocumentLoader(identity, { ...factoryOptions, allowPrivateAddress, specDeterminer }), options),
  };
}

/**
 * Whether the site may deliver to these inboxes (a follower's inbox and shared inbox, from its
 * actor document): https on a public address, not on a blocked domain. Fedify checks nothing of an
 * inbox it posts to, so an actor naming an inbox inside the site's network is not kept.
 */
export async function deliverableInboxes(urls: readonly URL[], options: Omit<RemoteFetchOptions, 'kv'>): Promise<boolean> {
  for (const url of urls) {
    if (isBlockedHost(url.hostname, options.blockedDomains)) return false;
    if (options.allowPrivateAddress) continue;
    if (url.protocol !== 'https:') return false;
    try {
      await validatePublicUrl(url.href);
    } catch {
      return false;
    }
  }
  return true;
}
