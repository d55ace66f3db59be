import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { Configuration } from 'oidc-provider';
import { Agent, fetch as undiciFetch } from 'undici';
import { isPublicAddress } from './public-address';

type Fetch = NonNullable<Configuration['fetch']>;
/** A host name to every address it resolves to (the system resolver; tests give their own). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export interface ClientDocumentFetchOptions {
  /** PEM certificates trusted besides the system's (tests: the CA of a loopback https server). */
  trustedCa?: string;
  /**
   * Tests only, off by default and never set from the environment: documents may also come from
   * loopback addresses (127.0.0.0/8, ::1). Private and every other non-public address stay refused.
   */
  allowLoopback?: boolean;
  resolve?: Resolve;
}

/** Fetches of client documents under way at once; more are refused (each waits up to 2.5 s). */
export const MAX_FETCHES_IN_FLIGHT = 8;
const CONNECT_TIMEOUT_MS = 2_500;

/** A fetch refused before any connection (a non-public address, not https, too many at once). */
export class FetchRefusedError extends Error {
  override readonly name = 'FetchRefusedError';
  readonly code = 'ERR_SVC_FETCH_REFUSED';
}

const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

const isLoopback = (address: string) => {
  const bare = address.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'));
};

/**
 * net's `lookup` for our sockets: resolves the name once, refuses it unless every address it
 * resolves to may be connected to, and hands the socket exactly those addresses, so the
 * connection goes to what was checked (no second lookup a rebinding DNS could answer differently).
 * TLS still verifies the certificate against the name.
 */
export function guardedLookup(resolve: Resolve, allowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    const answer = async () => {
      const addresses = await resolve(hostname);
      const refused = addresses.find((a) => !allowed(a.address));
      if (refused || addresses.length === 0) {
        throw new FetchRefusedError(
          refused ? `${hostname} resolves to a non-public address` : `${hostname} does not resolve`,
        );
      }
      const family = options.family === 4 || options.family === 6 ? options.family : undefined;
      const usable = family ? addresses.filter((a) => a.family === family) : addresses;
      if (usable.length === 0) throw new FetchRefusedError(`${hostname} has no IPv${family} address`);
      return usable;
    };
    answer().then(
      (usable) =>
        options.all ? callback(null, usable) : callback(null, usable[0]!.address, usable[0]!.family),
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}

/**
 * How the authorization server fetches what clients name (Client ID Metadata Documents, and any
 * jwks_uri or request_uri): over https only, never to a non-public address in any spelling (an IP
 * literal is checked as written, after the URL parser's normalization of 127.1, 0x7f000001 and the
 * like; a name is checked on every address it resolves to, and the socket connects only to those),
 * at most MAX_FETCHES_IN_FLIGHT at once. oidc-provider adds its 2.5 s timeout, `redirect: manual`
 * and the body limit of the configuration; its own dispatcher (which checks an address only after
 * connecting to it) is replaced by ours.
 */
export function clientDocumentFetch(options: ClientDocumentFetchOptions = {}): Fetch {
  const allowed = (address: string) =>
    isPublicAddress(address) || (options.allowLoopback === true && isLoopback(address));
  const agent = new Agent({
    connect: {
      lookup: guardedLookup(options.resolve ?? systemResolve, allowed),
      timeout: CONNECT_TIMEOUT_MS,
      ...(options.trustedCa ? { ca: options.trustedCa } : {}),
    },
  });
  let inFlight = 0;
  return (async (url: URL | string, init: Record<string, unknown>) => {
    const target = new URL(url);
    if (target.protocol !== 'https:') throw new FetchRefusedError('only https documents are fetched');
    const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
    // An IP literal never goes through `lookup`: it is checked here, before any socket exists.
    if (isIP(literal) !== 0 && !allowed(literal)) {
      throw new FetchRefusedError(`${target.hostname} is not a public address`);
    }
    if (inFlight >= MAX_FETCHES_IN_FLIGHT) throw new FetchRefusedError('too many document fetches at once');
    inFlight += 1;
    try {
      return await undiciFetch(target, { ...init, dispatcher: agent } as never);
    } finally {
      inFlight -= 1;
    }
  }) as unknown as Fetch;
}
