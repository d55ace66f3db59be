import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { BENCH_INGEST_KEY, type BenchCore } from '../core-harness';
import type { IngestClientResult, IngestClientTask } from '../ingest-client-process';

// How fast spans get in. The senders run in a process of their own (an exporter or a
// collector never shares the core's event loop): OTLP/HTTP JSON bodies of 1000 spans from 16
// concurrent clients (a collector fan-in), and our SDK's tracer making spans and its exporter
// delivering them. Both processes share the machine's two cores with the core and its engine.

export const INGEST_TARGETS = { otlpSpansPerSecond: 100_000, exporterSpansPerSecond: 50_000 } as const;

const SPANS_PER_BODY = 1000;
/** The OpenTelemetry Collector's batch processor sends up to 8192 spans a request by default. */
const COLLECTOR_SPANS_PER_BODY = 8192;
const CLIENTS = 16;

function runClient(task: IngestClientTask): Promise<IngestClientResult> {
  const child = fork(fileURLToPath(new URL('../ingest-client-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (result) => resolve(result as IngestClientResult));
    child.once('exit', (code) => reject(new Error(`ingest client exited with ${code}`)));
    child.send(task);
  });
}

/** The client's result, and how busy the core's event loop was meanwhile. */
async function measured(task: IngestClientTask) {
  const before = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const result = await runClient(task);
  const used = process.cpuUsage(cpu);
  return {
    ...result,
    coreLoop: performance.eventLoopUtilization(before).utilization,
    coreCpuUs: used.user + used.system,
  };
}

const verdict = (rate: number, target: number) => (rate >= target ? 'ok' : 'MISSED');

/** What the OTLP path keeps of the engine's own pace: the goal for its throughput. */
export const CEILING_SHARE_TARGET = 0.8;

/** A value the engine stores anyway when a row names no value: the core's inserts leave such columns out. */
const isDefault = (value: unknown) =>
  value === null ||
  value === '' ||
  value === 0 ||
  value === '0' ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && value !== null && Object.keys(value).length === 0);

/**
 * The spans the OTLP run stored, read back as the core wrote them: times as epoch milliseconds
 * (the core sends DateTime64 columns so), without the columns no row has a value for (the core's
 * insert leaves those out), under a project of their own.
 */
async function storedBatch(core: BenchCore, batchSize: number): Promise<Record<string, unknown>[]> {
  const columns = await core.ch.query<{ name: string; type: string }>(
    `SELECT name, type FROM system.columns
     WHERE database = currentDatabase() AND table = {t:String} AND default_kind NOT IN ('MATERIALIZED', 'ALIAS')
     ORDER BY position`,
    { t: 'spans' },
  );
  const select = columns
    .map(({ name, type }) =>
      /^(Nullable\()?DateTime64/.test(type) ? `toUnixTimestamp64Milli(${name}) AS ${name}` : name,
    )
    .join(', ');
  const stored = await core.ch.query<Record<string, unknown>>(
    `SELECT ${select} FROM spans WHERE project_id = {p:String} LIMIT {n:UInt32}`,
    { p: BENCH_INGEST_KEY.projectId, n: batchSize },
  );
  if (stored.length < batchSize) throw new Error(`only ${stored.length} spans stored`);
  const valued = columns
    .map((c) => c.name)
    .filter((name) => name === 'project_id' || stored.some((row) => !isDefault(row[name])));
  return stored.map((row) => {
    const lean: Record<string, unknown> = {};
    for (const name of valued) lean[name] = row[name];
    lean.project_id = 'bench_engine_ceiling';
    return lean;
  });
}

/**
 * The engine's ceiling in the same run: `batch` (the spans the OTLP run stored, as the core wrote
 * them) inserted again straight through our ClickHouse client (same table, same format, batches
 * of the same size, each under a deduplication token as the core's are, as many at once as the
 * client has sessions). No HTTP, no parsing of OTLP, no conversion: what is left is the engine's
 * insert and the client's encoding of the rows.
 */
async function engineCeiling(core: BenchCore, batch: readonly Record<string, unknown>[], rows: number) {
  const batches = Math.max(1, Math.round(rows / batch.length));
  let next = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: core.ch.concurrency }, async () => {
      while (next < batches) {
        const n = next++;
        await core.ch.insert('spans', batch, { deduplicationToken: `ceiling:${t0}:${n}` });
      }
    }),
  );
  return { rows: batches * batch.length, ms: performance.now() - t0, cpuUs: sumCpu(process.cpuUsage(cpu)) };
}

const sumCpu = (used: NodeJS.CpuUsage) => used.user + used.system;

/** Runs `turns` alternated halves of the OTLP run and of the ceiling, so drift hits both alike. */
async function otlpBesideCeiling(core: BenchCore, task: IngestClientTask & { kind: 'otlp' }, turns: number) {
  const half = { ...task, bodies: Math.max(1, Math.round(task.bodies / turns)) };
  const otlp = { ms: 0, delivered: 0, coreCpuUs: 0, clientCpuUs: 0, loopBusyMs: 0 };
  const ceiling = { ms: 0, rows: 0, cpuUs: 0 };
  let batch: Record<string, unknown>[] | undefined;
  let ceilingError: string | undefined;
  for (let turn = 0; turn < turns; turn++) {
    const run = await measured(half);
    otlp.ms += run.ms;
    otlp.delivered += run.delivered;
    otlp.coreCpuUs += run.coreCpuUs;
    otlp.clientCpuUs += run.clientCpuUs;
    otlp.loopBusyMs += run.coreLoop * run.ms;
    if (ceilingError) continue;
    try {
      batch ??= await storedBatch(core, task.spansPerBody);
      const c = await engineCeiling(core, batch, half.bodies * task.spansPerBody);
      ceiling.ms += c.ms;
      ceiling.rows += c.rows;
      ceiling.cpuUs += c.cpuUs;
    } catch (err) {
      ceilingError = (err as Error).message;
    }
  }
  return {
    otlp: { ...otlp, dropped: 0, coreLoop: otlp.loopBusyMs / otlp.ms },
    ceiling: ceilingError ?? {
      rows: ceiling.rows,
      rate: ceiling.rows / (ceiling.ms / 1000),
      cpuUsPerRow: ceiling.cpuUs / ceiling.rows,
    },
  };
}

/** Alternated halves of the OTLP run and the ceiling (more turns, finer alternation). */
const CEILING_TURNS = 4;

export async function benchIngest(core: BenchCore, bodies: number): Promise<string[]> {
  const key = BENCH_INGEST_KEY;
  const { otlp, ceiling } = await otlpBesideCeiling(
    core,
    {
      kind: 'otlp',
      url: core.url,
      ingestKey: `${key.keyId}:${key.secret}`,
      bodies,
      spansPerBody: SPANS_PER_BODY,
      clients: CLIENTS,
    },
    CEILING_TURNS,
  );
  const otlpRate = otlp.delivered / (otlp.ms / 1000);
  // The same spans in collector-sized bodies: what the core spends per request, not per span,
  // is the difference between the two.
  const collector = await measured({
    kind: 'otlp',
    url: core.url,
    ingestKey: `${key.keyId}:${key.secret}`,
    bodies: Math.max(1, Math.round((bodies * SPANS_PER_BODY) / COLLECTOR_SPANS_PER_BODY)),
    spansPerBody: COLLECTOR_SPANS_PER_BODY,
    clients: CLIENTS,
  });
  const collectorRate = collector.delivered / (collector.ms / 1000);

  const base = new URL(core.url);
  const sdk = await measured({
    kind: 'sdk',
    dsn: `${base.protocol}//${key.keyId}:${key.secret}@${base.host}/${key.projectId}`,
    spans: bodies * SPANS_PER_BODY,
    batchSize: 1000,
  });
  const sdkRate = sdk.delivered / (sdk.ms / 1000);

  // CPU per span, the core's process (its event loop and the engine's threads) and the sender's:
  // on two cores shared by both, what a span costs says more than how busy one thread was.
  const busy = (run: { coreLoop: number; coreCpuUs: number; clientCpuUs: number; delivered: number }) =>
    `core event loop ${Math.round(run.coreLoop * 100)}% busy, CPU a span: core ${(run.coreCpuUs / run.delivered).toFixed(1)} us, sender ${(run.clientCpuUs / run.delivered).toFixed(1)} us`;
  const share = typeof ceiling === 'string' ? Number.NaN : otlpRate / ceiling.rate;
  return [
    `ingest: OTLP/HTTP JSON, ${CLIENTS} clients, ${bodies} bodies of ${SPANS_PER_BODY} spans: ${Math.round(otlpRate).toLocaleString()} spans/s, ${busy(otlp)} (target >= ${INGEST_TARGETS.otlpSpansPerSecond.toLocaleString()}: ${verdict(otlpRate, INGEST_TARGETS.otlpSpansPerSecond)})`,
    typeof ceiling === 'string'
      ? `ingest: the engine's ceiling not measured: ${ceiling}`
      : `ingest: the engine's ceiling, the same spans as the core wrote them inserted straight through our client in batches of ${SPANS_PER_BODY} under deduplication tokens (${ceiling.rows.toLocaleString()} rows, ${core.ch.concurrency} at once, in ${CEILING_TURNS} turns alternated with OTLP's): ${Math.round(ceiling.rate).toLocaleString()} rows/s, CPU a row ${ceiling.cpuUsPerRow.toFixed(1)} us; OTLP reaches ${share.toFixed(2)} of it at ${(otlp.coreCpuUs / otlp.delivered / ceiling.cpuUsPerRow).toFixed(2)}x its CPU a row (target >= ${CEILING_SHARE_TARGET}: ${verdict(share, CEILING_SHARE_TARGET)})`,
    `ingest: OTLP/HTTP JSON, ${CLIENTS} clients, ${collector.delivered / COLLECTOR_SPANS_PER_BODY} bodies of ${COLLECTOR_SPANS_PER_BODY} spans (a collector's default batch): ${Math.round(collectorRate).toLocaleString()} spans/s, ${busy(collector)} (target >= ${INGEST_TARGETS.otlpSpansPerSecond.toLocaleString()}: ${verdict(collectorRate, INGEST_TARGETS.otlpSpansPerSecond)})`,
    `ingest: sdk-node tracer + exporter, ${(bodies * SPANS_PER_BODY).toLocaleString()} spans, batches of 1000: ${Math.round(sdkRate).toLocaleString()} spans/s delivered, ${sdk.dropped} dropped, ${busy(sdk)} (target >= ${INGEST_TARGETS.exporterSpansPerSecond.toLocaleString()}: ${verdict(sdkRate, INGEST_TARGETS.exporterSpansPerSecond)})`,
  ];
}
