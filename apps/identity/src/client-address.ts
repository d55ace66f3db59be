import { isIP } from 'node:net';
import { UnauthorizedError, UserInputError } from '@svc/errors';
import { internalSecretCheck } from '@svc/tool-server/internal-auth';
import type { Request } from 'express';

/**
 * The browser's address, sent by the web console with its password checks: identity itself only
 * sees the console's. Honoured only together with the internal secret, so nobody else can choose
 * the address their attempts are counted under.
 */
export const CLIENT_ADDRESS_HEADER = 'x-svc-client-address';

/**
 * The address a request is throttled under: the client's (the socket's, or the one a trusted
 * reverse proxy names), or the console's X-Svc-Client-Address when the request also carries the
 * internal secret. The header without a valid secret is a 401 (a forged address is refused, not
 * quietly ignored); a value that is not an IP address is a 400.
 */
export function clientAddressResolver(internalSecret: string): (req: Request) => string {
  const refusal = internalSecretCheck(internalSecret);
  return (req) => {
    const forwarded = req.get(CLIENT_ADDRESS_HEADER);
    // The client's per express's `trust proxy` (set from SVC_IDENTITY_TRUSTED_PROXIES): the socket's
    // peer, or the address a trusted reverse proxy names in X-Forwarded-For.
    if (forwarded === undefined) return req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const reason = refusal(req.get('x-internal-secret'));
    if (reason !== undefined) throw new UnauthorizedError(reason);
    const address = forwarded.trim();
    if (isIP(address) === 0) {
      throw new UserInputError(`${CLIENT_ADDRESS_HEADER} must be an IPv4 or IPv6 address.`);
    }
    return address;
  };
}
