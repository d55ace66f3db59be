import { Agent, request } from 'undici';
import { type Summary, summarize } from './stats';

export interface LoadResult {
  latency: Summary;
  requestsPerSecond: number;
  errors: number;
}

/**
 * `connections` concurrent keep-alive callers, each sending requests back to back for
 * `durationMs`; every request is checked for a 200.
 */
export async function load(
  url: string,
  options: {
    connections: number;
    durationMs: number;
    headers: Record<string, string>;
    /** A function when each request needs its own body (MCP: a unique JSON-RPC id per session). */
    body: string | ((n: number) => string);
  },
): Promise<LoadResult> {
  const dispatcher = new Agent({ connections: options.connections, pipelining: 1 });
  const samples: number[] = [];
  let errors = 0;
  const end = Date.now() + options.durationMs;
  let sent = 0;
  const bodyOf = typeof options.body === 'function' ? options.body : () => options.body as string;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        const res = await request(url, {
          method: 'POST',
          headers: options.headers,
          body: bodyOf(sent++),
          dispatcher,
        });
        await res.body.arrayBuffer();
        samples.push(performance.now() - t0);
        if (res.statusCode !== 200) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  return { latency: summarize(samples), requestsPerSecond: samples.length / seconds, errors };
}
