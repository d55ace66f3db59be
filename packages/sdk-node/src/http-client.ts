import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import { formatTraceparent, type Tracer, templatePath } from '@svc/sdk-core';

type RequestFn = typeof http.request;

/**
 * A client span around one outbound `http(s).request`, and `traceparent` on it pointing at the
 * span. The span ends when the answer's headers arrive (status error on 5xx), on a request error,
 * or when the request closes without either.
 */
function traceClientRequest(tracer: Tracer, req: ClientRequest, ingestHost: string): ClientRequest {
  const host = req.host ?? 'localhost';
  // The Host header names host and port, like the ingest endpoint's URL does.
  if (String(req.getHeader('host') ?? host) === ingestHost || req.headersSent) return req;
  const span = tracer.startSpan(`${req.method} ${host}${templatePath(req.path)}`, { kind: 'client' });
  span.setAttribute('http.method', req.method);
  if (!req.hasHeader('traceparent')) req.setHeader('traceparent', formatTraceparent(span.context));
  req.once('response', (res: IncomingMessage) => {
    span.setAttribute('http.status_code', res.statusCode ?? 0);
    span.setStatus((res.statusCode ?? 0) >= 500 ? 'error' : 'ok');
    span.end();
  });
  req.once('error', (err) => {
    span.recordError(err);
    span.end();
  });
  req.once('close', () => span.end());
  return req;
}

/**
 * Patches `request` and `get` of node:http and node:https (for CommonJS callers and, through
 * syncBuiltinESMExports, ES module imports made after this call): every outbound request gets a
 * client span and `traceparent`, except requests to the SDK's own ingest host. Returns the function
 * that puts the originals back.
 */
export function instrumentHttp(tracer: Tracer): () => void {
  const ingestHost = new URL(tracer.exporter.endpoint).host;
  const restore: (() => void)[] = [];
  for (const mod of [http, https]) {
    const originalRequest = mod.request;
    const originalGet = mod.get;
    // Every overload of request (url, options, callback in their combinations) passes through.
    const call = originalRequest as (...args: unknown[]) => ClientRequest;
    const request = ((...args: unknown[]) =>
      traceClientRequest(tracer, call(...args), ingestHost)) as unknown as RequestFn;
    // get = request + end(); the original get would send the headers before they could be set.
    const get = ((...args: unknown[]) => {
      const req = (request as unknown as (...a: unknown[]) => ClientRequest)(...args);
      req.end();
      return req;
    }) as unknown as typeof http.get;
    mod.request = request;
    mod.get = get;
    restore.push(() => {
      if (mod.request === request) mod.request = originalRequest;
      if (mod.get === get) mod.get = originalGet;
    });
  }
  syncBuiltinESMExports();
  return () => {
    for (const undo of restore) undo();
    syncBuiltinESMExports();
  };
}
