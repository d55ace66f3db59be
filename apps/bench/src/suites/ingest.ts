import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { BENCH_INGEST_KEY, type BenchCore } from '../core-harness';
import type { IngestClientResult, IngestClientTask } from '../ingest-client-process';

// Issue 12: how fast spans get in. The senders run in a process of their own (an exporter or a
// collector never shares the core's event loop): OTLP/HTTP JSON bodies of 1000 spans from 16
// concurrent clients (a collector fan-in), and our SDK's tracer making spans and its exporter
// delivering them. Both processes share the machine's two cores with the core and its engine.

export const ISSUE12_TARGETS = { otlpSpansPerSecond: 100_000, exporterSpansPerSecond: 50_000 } as const;

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

/**
 * The engine's ceiling in the same run: the spans the OTLP run stored, read back as stored, and
 * inserted again straight through our ClickHouse client (same table, same rows, batches of the
 * same size, as many at once as the client has sessions), under a project of their own. No
 * HTTP, no parsing of OTLP, no conversion: what is left is the engine's insert and the client's
 * encoding of the rows.
 */
async function engineCeiling(core: BenchCore, spans: number, batchSize: number) {
  const stored = await core.ch.query<Record<string, unknown>>(
    'SELECT * FROM spans WHERE project_id = {p:String} LIMIT {n:UInt32}',
    { p: BENCH_INGEST_KEY.projectId, n: batchSize },
  );
  if (stored.length < batchSize) throw new Error(`only ${stored.length} spans stored`);
  const batch = stored.map((row) => ({ ...row, project_id: 'bench_engine_ceiling' }));
  const batches = Math.max(1, Math.round(spans / batchSize));
  let next = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: core.ch.concurrency }, async () => {
      while (next < batches) {
        next++;
        await core.ch.insert('spans', batch);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    rows: batches * batchSize,
    rate: (batches * batchSize) / seconds,
    cpuUsPerRow: (used.user + used.system) / (batches * batchSize),
  };
}

export async function benchIngest(core: BenchCore, bodies: number): Promise<string[]> {
  const key = BENCH_INGEST_KEY;
  const otlp = await measured({
    kind: 'otlp',
    url: core.url,
    ingestKey: `${key.keyId}:${key.secret}`,
    bodies,
    spansPerBody: SPANS_PER_BODY,
    clients: CLIENTS,
  });
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
  const ceiling = await engineCeiling(core, bodies * SPANS_PER_BODY, SPANS_PER_BODY).catch(
    (err: Error) => err.message,
  );
  const share = typeof ceiling === 'string' ? Number.NaN : otlpRate / ceiling.rate;
  return [
    `ingest: OTLP/HTTP JSON, ${CLIENTS} clients, ${bodies} bodies of ${SPANS_PER_BODY} spans: ${Math.round(otlpRate).toLocaleString()} spans/s, ${busy(otlp)} (target >= ${ISSUE12_TARGETS.otlpSpansPerSecond.toLocaleString()}: ${verdict(otlpRate, ISSUE12_TARGETS.otlpSpansPerSecond)})`,
    typeof ceiling === 'string'
      ? `ingest: the engine's ceiling not measured: ${ceiling}`
      : `ingest: the engine's ceiling, the same spans as stored inserted straight through our client in batches of ${SPANS_PER_BODY} (${ceiling.rows.toLocaleString()} rows, ${core.ch.concurrency} at once): ${Math.round(ceiling.rate).toLocaleString()} rows/s, CPU a row ${ceiling.cpuUsPerRow.toFixed(1)} us; OTLP reaches ${share.toFixed(2)} of it at ${(otlp.coreCpuUs / otlp.delivered / ceiling.cpuUsPerRow).toFixed(2)}x its CPU a row (target >= ${CEILING_SHARE_TARGET}: ${verdict(share, CEILING_SHARE_TARGET)})`,
    `ingest: OTLP/HTTP JSON, ${CLIENTS} clients, ${collector.delivered / COLLECTOR_SPANS_PER_BODY} bodies of ${COLLECTOR_SPANS_PER_BODY} spans (a collector's default batch): ${Math.round(collectorRate).toLocaleString()} spans/s, ${busy(collector)} (target >= ${ISSUE12_TARGETS.otlpSpansPerSecond.toLocaleString()}: ${verdict(collectorRate, ISSUE12_TARGETS.otlpSpansPerSecond)})`,
    `ingest: sdk-node tracer + exporter, ${(bodies * SPANS_PER_BODY).toLocaleString()} spans, batches of 1000: ${Math.round(sdkRate).toLocaleString()} spans/s delivered, ${sdk.dropped} dropped, ${busy(sdk)} (target >= ${ISSUE12_TARGETS.exporterSpansPerSecond.toLocaleString()}: ${verdict(sdkRate, ISSUE12_TARGETS.exporterSpansPerSecond)})`,
  ];
}
