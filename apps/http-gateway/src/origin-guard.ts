import { ForbiddenOriginError } from '@svc/errors';
import type { RequestHandler } from 'express';

const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

export function isLoopbackBind(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Host header values accepted on a loopback bind: the loopback names, bare or with a port. */
export function loopbackHostAllowed(hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  return LOOPBACK_HOST.test(hostHeader.trim().toLowerCase());
}

/**
 * A request whose Origin names the very host it was sent to is same-origin, not cross-site. A
 * rebinding page also looks same-origin (its Origin and Host are both the attacker's name), which
 * is why the Host check below stays on for loopback binds.
 */
function sameOrigin(origin: string, hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  try {
    const url = new URL(origin);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.host === hostHeader.trim().toLowerCase()
    );
  } catch {
    return false;
  }
}

export interface OriginGuardOptions {
  allowedOrigins: readonly string[];
}

/**
 * On a loopback bind, before every route (public metadata included): a request whose Host is not a
 * loopback name came through a name that re-resolves to 127.0.0.1 (DNS rebinding), never from a
 * client of this gateway. Refused alike on every path, so no answer depends on which one was asked.
 */
export function hostGuard(checkHost: boolean): RequestHandler {
  return (req, _res, next) => {
    if (checkHost && !loopbackHostAllowed(req.get('host'))) {
      next(new ForbiddenOriginError('This host is not allowed.'));
      return;
    }
    next();
  };
}

/**
 * Pipeline step 2 (docs/architecture.md, "The request pipeline"), on every route: a browser's
 * Origin must be one we allow; clients that send no Origin (CLIs, MCP clients, servers) are not
 * affected. (A rebinding page's own Host is refused before, by `hostGuard`.)
 */
export function originGuard(options: OriginGuardOptions): RequestHandler {
  const allowed = new Set(options.allowedOrigins);
  return (req, _res, next) => {
    const origin = req.get('origin');
    if (
      origin !== undefined &&
      !allowed.has(origin.replace(/\/+$/, '')) &&
      !sameOrigin(origin, req.get('host'))
    ) {
      next(new ForbiddenOriginError('This origin is not allowed.'));
      return;
    }
    next();
  };
}
