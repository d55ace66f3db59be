import type { Request } from 'express';

/**
 * The browser's address, which identity throttles password checks under: the socket's, or what a
 * trusted reverse proxy says in X-Forwarded-For (express's `trust proxy`, set from
 * SVC_CONSOLE_TRUSTED_PROXIES; nobody's by default, so no browser can choose its own address).
 */
export function browserAddressOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '0.0.0.0';
}
