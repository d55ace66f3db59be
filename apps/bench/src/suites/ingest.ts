import { createTracer, newSpanId, newTraceId } from '@svc/sdk-node';
import { BENCH_INGEST_KEY, type BenchCore } from '../core-harness';

// Issue 12: how fast spans get in. OTLP/HTTP JSON posted by 4 concurrent clients (bodies of 1000
// spans, made before the clock starts, each body distinct so none is deduplicated), and our SDK's
// exporter draining spans a tracer made. Everything runs in one process with the core, so the
// figures include the sender's own work on the same two cores.

export const ISSUE12_TARGETS = { otlpSpansPerSecond: 100_000, exporterSpansPerSecond: 50_000 } as const;

const SPANS_PER_BODY = 1000;
const CLIENTS = 4;

function otlpBody(now: number): string {
  const spans = [];
  let traceId = newTraceId();
  for (let i = 0; i < SPANS_PER_BODY; i++) {
    if (i % 8 === 0) traceId = newTraceId();
    const start = BigInt(now - 60_000 + i) * 1_000_000n;
    spans.push({
      traceId,
      spanId: newSpanId(),
      name: i % 8 === 0 ? 'GET /api/v1/items/:id' : 'db.query',
      kind: i % 8 === 0 ? 2 : 3,
      startTimeUnixNano: `${start}`,
      endTimeUnixNano: `${start + 12_345_678n}`,
      attributes: [{ key: 'http.route', value: { stringValue: '/api/v1/items/:id' } }],
      status: { code: i % 50 === 0 ? 2 : 0 },
    });
  }
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] },
        scopeSpans: [{ spans }],
      },
    ],
  });
}

export async function benchIngest(core: BenchCore, bodies: number): Promise<string[]> {
  const prepared = Array.from({ length: bodies }, () => otlpBody(Date.now()));
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < prepared.length; i = next++) {
        const res = await fetch(`${core.url}/v1/traces`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-svc-ingest-key': `${BENCH_INGEST_KEY.keyId}:${BENCH_INGEST_KEY.secret}`,
          },
          body: prepared[i],
        });
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`otlp ingest answered ${res.status}`);
      }
    }),
  );
  const otlpRate = (bodies * SPANS_PER_BODY) / ((performance.now() - t0) / 1000);

  const spans = bodies * SPANS_PER_BODY;
  const dsn = `${new URL(core.url).protocol}//${BENCH_INGEST_KEY.keyId}:${BENCH_INGEST_KEY.secret}@${new URL(core.url).host}/${BENCH_INGEST_KEY.projectId}`;
  const tracer = createTracer({ service: 'bench-sdk', exporter: { dsn, batchSize: 1000, maxQueue: spans } });
  const t1 = performance.now();
  for (let i = 0; i < spans; i++) tracer.startSpan(i % 8 === 0 ? 'GET /api/v1/items/:id' : 'db.query').end();
  await tracer.exporter.flush();
  const exporterRate = tracer.exporter.stats().sent / ((performance.now() - t1) / 1000);
  const { dropped } = tracer.exporter.stats();
  await tracer.shutdown();

  const verdict = (rate: number, target: number) => (rate >= target ? 'ok' : 'MISSED');
  return [
    `ingest: OTLP/HTTP JSON, ${CLIENTS} clients, ${bodies} bodies of ${SPANS_PER_BODY} spans: ${Math.round(otlpRate).toLocaleString()} spans/s (target >= ${ISSUE12_TARGETS.otlpSpansPerSecond.toLocaleString()}: ${verdict(otlpRate, ISSUE12_TARGETS.otlpSpansPerSecond)})`,
    `ingest: sdk-node tracer + exporter, ${spans.toLocaleString()} spans, batches of 1000: ${Math.round(exporterRate).toLocaleString()} spans/s delivered, ${dropped} dropped (target >= ${ISSUE12_TARGETS.exporterSpansPerSecond.toLocaleString()}: ${verdict(exporterRate, ISSUE12_TARGETS.exporterSpansPerSecond)})`,
  ];
}
