import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClickHouse, createClickHouse } from '@svc/clickhouse';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { createCoreApp, migrateCore } from '@svc/observability-core';
import { type Summary, summarize } from './stats';

export const SECRET = 'bench-internal-secret-0123456789';
/** The one ingest key the bench core knows (ingest benchmarks sign with it). */
export const BENCH_INGEST_KEY = {
  keyId: 'key_bench',
  secret: 'bench-ingest-secret-0123456789ab',
  projectId: 'bench_ingest',
} as const;

export interface BenchCore {
  ch: ClickHouse;
  url: string;
  now: number;
  /** Calls a core tool `runs` times after `warmup` calls; latencies in ms, or why it could not run. */
  measure(
    projectId: string,
    tool: string,
    input: unknown,
    runs: number,
    warmup?: number,
  ): Promise<Summary | string>;
  close(): Promise<void>;
}

/** The real core (chDB embedded, in this process) on a loopback port, as the gateway calls it. */
export async function startBenchCore(): Promise<BenchCore> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const ch = await createClickHouse({ path: join(dir, 'clickhouse'), database: 'bench' });
  await migrateCore(ch);
  const now = Date.now();
  const app = createCoreApp({
    ch,
    ingestKeys: {
      resolve: async (keyId) =>
        keyId === BENCH_INGEST_KEY.keyId
          ? {
              projectId: BENCH_INGEST_KEY.projectId,
              secret: BENCH_INGEST_KEY.secret,
              active: true,
              allowedOrigins: [],
            }
          : null,
    },
    internalSecret: SECRET,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    now: () => now,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function call(projectId: string, tool: string, input: unknown): Promise<number> {
    const res = await fetch(`${url}/internal/v1/projects/${projectId}/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': SECRET },
      body: JSON.stringify(input),
    });
    await res.arrayBuffer();
    return res.status;
  }

  return {
    ch,
    url,
    now,
    async measure(projectId, tool, input, runs, warmup = 3) {
      const first = await call(projectId, tool, input);
      if (first === 404) return `${tool} is not served by the core yet`;
      if (first !== 200) return `${tool} answered ${first}`;
      for (let i = 1; i < warmup; i++) await call(projectId, tool, input);
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        await call(projectId, tool, input);
        samples.push(performance.now() - t0);
      }
      return summarize(samples);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await ch.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
