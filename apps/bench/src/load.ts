import { Agent, request } from 'undici';
import { type Summary, summarize } from './stats';

export interface LoadResult {
  latency: Summary;
  requestsPerSecond: number;
  /** Answers with a status `expected` refused. */
  errors: number;
  /** Answers by status code. */
  statuses: Record<number, number>;
}

export interface LoadRequest {
  headers: Record<string, string>;
  body: string;
  path?: string;
}

export interface LoadOptions {
  connections: number;
  durationMs: number;
  /** The n-th request (MCP needs a unique JSON-RPC id per session; a mix varies tool and token). */
  request: (n: number) => LoadRequest;
  /** Whether a status is a success for this request; default: 200 only. */
  expected?: (status: number, n: number) => boolean;
}

/**
 * `connections` concurrent keep-alive callers, each sending requests back to back for
 * `durationMs`, every answer read and its status checked.
 */
export async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  const dispatcher = new Agent({ connections: options.connections, pipelining: 1 });
  const samples: number[] = [];
  const statuses: Record<number, number> = {};
  const expected = options.expected ?? ((status: number) => status === 200);
  let errors = 0;
  const end = Date.now() + options.durationMs;
  let sent = 0;
  const origin = new URL(url);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (Date.now() < end) {
        const n = sent++;
        const req = options.request(n);
        const t0 = performance.now();
        const res = await request(new URL(req.path ?? origin.pathname, origin), {
          method: 'POST',
          headers: req.headers,
          body: req.body,
          dispatcher,
        });
        await res.body.arrayBuffer();
        samples.push(performance.now() - t0);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (!expected(res.statusCode, n)) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  return { latency: summarize(samples), requestsPerSecond: samples.length / seconds, errors, statuses };
}

/** The same request every time. */
export const fixed = (headers: Record<string, string>, body: string) => () => ({ headers, body });
