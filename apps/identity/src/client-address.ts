import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { UnauthorizedError, UserInputError } from '@svc/tool-kit';
import type { Request } from 'express';

/**
 * The browser's address, sent by the web console with its password checks: identity itself only
 * sees the console's. Honoured only together with the internal secret, so nobody else can choose
 * the address their attempts are counted under.
 */
export const CLIENT_ADDRESS_HEADER = 'x-svc-client-address';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Express's compiled `trust proxy`: is the address at `hop` (0: the socket's peer) a trusted proxy? */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * The client's address as express's `trust proxy` reads it: starting from the socket's peer, each
 * trusted proxy's X-Forwarded-For entry (rightmost first) names the hop before it, up to the first
 * address that is not a trusted proxy. With no proxy trusted, the socket's peer.
 */
export function forwardedClientAddress(req: IncomingMessage, trust: ProxyTrust): string {
  const header = req.headers['x-forwarded-for'];
  const listed = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '')
    .reverse();
  const hops = [req.socket.remoteAddress ?? 'unknown', ...listed];
  for (let hop = 0; hop < hops.length - 1; hop++) if (!trust(hops[hop]!, hop)) return hops[hop]!;
  return hops[hops.length - 1]!;
}

/**
 * The address a request is throttled under: the client's (the socket's, or the one a trusted
 * reverse proxy names), or the console's X-Svc-Client-Address when the request also carries the
 * internal secret. The header without a
 * valid secret is a 401 (a forged address is refused, not quietly ignored); a value that is not
 * an IP address is a 400.
 */
export function clientAddressResolver(
  internalSecret: string,
  trust: ProxyTrust = () => false,
): (req: Request) => string {
  const expected = digest(internalSecret);
  return (req) => {
    const forwarded = req.get(CLIENT_ADDRESS_HEADER);
    if (forwarded === undefined) return forwardedClientAddress(req, trust);
    const secret = req.get('x-internal-secret');
    if (secret === undefined || !timingSafeEqual(digest(secret), expected)) {
      throw new UnauthorizedError(secret === undefined ? 'missing_internal_secret' : 'wrong_internal_secret');
    }
    const address = forwarded.trim();
    if (isIP(address) === 0) {
      throw new UserInputError(`${CLIENT_ADDRESS_HEADER} must be an IPv4 or IPv6 address.`);
    }
    return address;
  };
}
