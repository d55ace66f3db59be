// The engine's floor for a tool's own SQL, and what each layer of ours adds on top of it, in a
// process of its own (forked, IPC: one task message in, one report out). The same demo project as
// the call-cost suite's is ingested through the core's own ingest route into an embedded engine
// here; each tool is called once with a ClickHouse that records its queries; then, in turns
// alternated round by round, with as many concurrent callers as the core has sessions:
// - engine: chDB sessions running the recorded SQL (parameters written in, as our client does),
//   answers left as bytes;
// - the same with max_threads 1 (point queries need no thread pool);
// - our client: @svc/clickhouse's query (its settings, parameter rendering, rows parsed);
// - the tool: its queries through our client, the rows converted, the answer JSON.stringify'd;
// - the same with every query on the engine's own thread count (point queries ask for one).
// CPU per call is this process's (every thread: the engine's are in it).
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClickHouse, createClickHouse, renderQueryParams } from '@svc/clickhouse';
import { iterateDemoBatches } from '@svc/demo-data';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import {
  type AnyCoreTool,
  createCoreApp,
  createCoreToolRegistry,
  migrateCore,
  signIngestBody,
} from '@svc/observability-core';
import { createChdbConnection } from 'chdb/connection';
import type { EngineFloorLayer, EngineFloorTask, EngineFloorTurn } from './engine-floor';

const SESSIONS = 4;
const KEY = { keyId: 'key_floor', secret: 'floor-ingest-secret-0123456789abcd', projectId: 'floor_project' };

interface RawSession {
  queryAsync(sql: string, opts?: { format?: string }): Promise<{ bytes(): Uint8Array }>;
}

async function seed(url: string, task: EngineFloorTask, now: number): Promise<void> {
  for (const batch of iterateDemoBatches({ ...task.seed, now }, 10)) {
    const { logs, crashes, sessions, events, feedback } = batch;
    const body = JSON.stringify({ logs, crashes, sessions, events, feedback });
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await fetch(`${url}/ingest/v1/batch`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-svc-key': KEY.keyId,
        'x-svc-timestamp': String(timestamp),
        'x-svc-signature': signIngestBody(KEY.secret, timestamp, body),
      },
      body,
    });
    if (!res.ok) throw new Error(`floor ingest: ${res.status} ${await res.text()}`);
  }
}

/**
 * What every statement of our client states too (64-bit integers as strings, answers formatted on
 * the query's thread, no sampling profiler), held once: the floor is the engine at its cheapest
 * for the same answer.
 */
async function holdClientSettings(session: RawSession): Promise<void> {
  await session.queryAsync('USE floor');
  await session.queryAsync('SET output_format_json_quote_64bit_integers = 1');
  await session.queryAsync('SET output_format_parallel_formatting = 0');
  await session.queryAsync('SET query_profiler_real_time_period_ns = 0');
  await session.queryAsync('SET query_profiler_cpu_time_period_ns = 0');
}

/** A ClickHouse that records every query a tool makes (SQL and parameters), then runs it. */
function recording(ch: ClickHouse, into: { sql: string; params: Record<string, unknown> }[]): ClickHouse {
  return {
    ...ch,
    query(sql, params, options) {
      into.push({ sql, params: params ?? {} });
      return ch.query(sql, params, options);
    },
  };
}

/** `concurrency` loops calling `once` back to back for `ms`: calls, CPU µs per call, calls/s. */
async function turn(ms: number, concurrency: number, once: (worker: number) => Promise<unknown>) {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + ms;
  let calls = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < end) {
        await once(worker);
        calls++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  return { calls, cpuUsPerCall: (used.user + used.system) / Math.max(1, calls), rps: calls / seconds };
}

process.once('message', async (task: EngineFloorTask) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-floor-'));
  const path = join(dir, 'clickhouse');
  const ch = await createClickHouse({ path, database: 'floor', sessions: SESSIONS });
  await migrateCore(ch);
  const now = Date.now();
  const app = createCoreApp({
    ch,
    ingestKeys: {
      resolve: async (keyId) =>
        keyId === KEY.keyId
          ? { projectId: KEY.projectId, secret: KEY.secret, active: true, allowedOrigins: [] }
          : null,
    },
    internalSecret: 'floor-internal-secret-0123456789',
    logger: silentLogger,
    metrics: createNoopMetrics(),
    now: () => now,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await seed(url, task, now);

  const registry = createCoreToolRegistry();
  const raw: RawSession[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const session = createChdbConnection({ path }).chdb as unknown as RawSession;
    await holdClientSettings(session);
    raw.push(session);
  }
  const rawOneThread: RawSession[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const session = createChdbConnection({ path }).chdb as unknown as RawSession;
    await holdClientSettings(session);
    await session.queryAsync('SET max_threads = 1');
    await session.queryAsync("SET local_filesystem_read_method = 'pread'");
    rawOneThread.push(session);
  }

  const layers: EngineFloorLayer[] = [];
  const runs: { layer: EngineFloorLayer; once: (worker: number) => Promise<unknown> }[] = [];
  for (const t of task.tools) {
    const tool = registry.get(t.tool) as AnyCoreTool | undefined;
    if (!tool) throw new Error(`floor: no tool ${t.tool}`);
    let args = t.args;
    if (t.tool === 'crash.get') {
      const [first] = await ch.query<{ event_id: string }>(
        'SELECT event_id FROM crashes WHERE project_id = {p:String} LIMIT 1',
        { p: KEY.projectId },
      );
      args = { event_id: first?.event_id ?? 'none' };
    }
    const input = tool.input.parse(args);
    const queries: { sql: string; params: Record<string, unknown> }[] = [];
    const ctx = { ch, projectId: KEY.projectId, now };
    await tool.run({ ...ctx, ch: recording(ch, queries) }, input);
    const rendered = queries.map((q) => `${renderQueryParams(q.sql, q.params)}`);
    const add = (name: string, once: (worker: number) => Promise<unknown>) => {
      const layer: EngineFloorLayer = { tool: t.tool, layer: name, queries: queries.length, turns: [] };
      layers.push(layer);
      runs.push({ layer, once });
    };
    add('engine (chDB, same SQL, JSONEachRow bytes)', async (w) => {
      for (const sql of rendered) (await raw[w]!.queryAsync(sql, { format: 'JSONEachRow' })).bytes();
    });
    add('engine, max_threads 1', async (w) => {
      for (const sql of rendered) (await rawOneThread[w]!.queryAsync(sql, { format: 'JSONEachRow' })).bytes();
    });
    add('our client (@svc/clickhouse query, rows parsed)', async () => {
      for (const q of queries) await ch.query(q.sql, q.params);
    });
    add('the tool (queries, rows converted, answer stringified)', async () => {
      JSON.stringify(await tool.run(ctx, input));
    });
    // The same with every query on the engine's own thread count: what one thread for point
    // queries saves (tools/sql/point-query.ts in the core).
    const anyThreads: ClickHouse = {
      ...ch,
      query: (sql, params, o) => ch.query(sql, params, { ...o, maxThreads: 0 }),
    };
    add("the tool, the engine's own thread count", async () => {
      JSON.stringify(await tool.run({ ...ctx, ch: anyThreads }, input));
    });
  }
  for (const { once } of runs) await turn(Math.min(1000, task.turnMs), SESSIONS, once);
  for (let round = 0; round < task.rounds; round++)
    for (const { layer, once } of runs) {
      const measured: EngineFloorTurn = await turn(task.turnMs, SESSIONS, once);
      layer.turns.push(measured);
    }

  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await ch.close();
  rmSync(dir, { recursive: true, force: true });
  process.send?.({ layers, concurrency: SESSIONS }, () => process.exit(0));
});
