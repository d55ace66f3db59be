import type { Server } from 'node:http';

/**
 * How long an idle kept-alive connection stays open. Node's default (5 s) is shorter than the idle
 * timeouts of most HTTP clients and proxies, so a client may send a request on a connection at the
 * very moment the server closes it: the request fails with EPIPE or ECONNRESET and never reaches us.
 * A client whose event loop was busy for a few seconds (building a large upload) loses that race
 * every time. 65 s outlasts the usual client and load balancer idle timeouts (60 s); a client that
 * honours the `Keep-Alive: timeout=65` header we send closes first.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Node requires the headers timeout to exceed the keep-alive timeout. */
export const HEADERS_TIMEOUT_MS = KEEP_ALIVE_TIMEOUT_MS + 1_000;

/** Gives a service's HTTP server the stack's connection timeouts; returns the server. */
export function withServerTimeouts<S extends Server>(server: S): S {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  return server;
}
