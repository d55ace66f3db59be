import http from 'node:http';
import https from 'node:https';
import type { ExportSend } from '@svc/sdk-core';

// The exporter's requests go through node:http(s) rather than fetch: undici's fetch passes a body
// through web streams, a large part of the exporter's CPU a span, taken from the app the SDK
// instruments (docs/decisions.md, "Ingest speed (OTLP, SDK exporters)"). Connections are
// kept alive between batches. The functions are taken before instrumentHttp can patch them: the
// exporter's own requests are never traced (the instrumentation skips the ingest host as well).
const requestOf = { 'http:': http.request, 'https:': https.request } as const;
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
} as const;

export const nodeSend: ExportSend = (url, { headers, body, timeoutMs }) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const protocol = target.protocol === 'https:' ? 'https:' : 'http:';
    const payload = Buffer.from(body, 'utf8');
    const req = requestOf[protocol](
      target,
      {
        method: 'POST',
        agent: agents[protocol],
        headers: { ...headers, 'content-length': String(payload.length) },
      },
      (res) => {
        // The answer's body is read and dropped, so the connection can serve the next batch.
        res.resume();
        res.once('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            header: (name) => {
              const value = res.headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
            },
          }),
        );
        res.once('error', reject);
      },
    );
    // A bound on the whole exchange (connecting, sending, the answer), not on an idle socket only.
    const deadline = setTimeout(
      () => req.destroy(new Error(`export timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    deadline.unref();
    req.once('close', () => clearTimeout(deadline));
    req.once('error', reject);
    req.end(payload);
  });
