// The senders of the ingest suite, in a process of their own (forked, IPC): an exporter or a
// collector is never in the core's process, and its work on the event loop must not be counted
// as the core's. Told what to send by one message, answers with one message.
import { randomBytes } from 'node:crypto';
import { createTracer, nodeSend } from '@svc/sdk-node';

export type IngestClientTask =
  | { kind: 'otlp'; url: string; ingestKey: string; bodies: number; spansPerBody: number; clients: number }
  | { kind: 'sdk'; dsn: string; spans: number; batchSize: number };

export interface IngestClientResult {
  ms: number;
  /** Spans the core accepted. */
  delivered: number;
  dropped: number;
  /** The sender's CPU time while it sent (user + system, us). */
  clientCpuUs: number;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** An OTLP/HTTP JSON traces body as an OpenTelemetry SDK writes it: 8 spans a trace. */
function otlpBody(spans: number, now: number): string {
  const list = [];
  let traceId = hex(16);
  for (let i = 0; i < spans; i++) {
    if (i % 8 === 0) traceId = hex(16);
    const start = BigInt(now - 60_000 + i) * 1_000_000n;
    list.push({
      traceId,
      spanId: hex(8),
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
        scopeSpans: [{ spans: list }],
      },
    ],
  });
}

async function otlp(task: Extract<IngestClientTask, { kind: 'otlp' }>): Promise<IngestClientResult> {
  // Made before the clock starts, each distinct (none is a retry of another).
  const bodies = Array.from({ length: task.bodies }, () => otlpBody(task.spansPerBody, Date.now()));
  let next = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: task.clients }, async () => {
      for (let i = next++; i < bodies.length; i = next++) {
        // Our Node SDK's sender (node:http, kept-alive connections), as a collector's lean client
        // would post: undici's fetch spent 3 us of CPU a span (1000-span bodies) on the two cores
        // the core needs.
        const { status } = await nodeSend(`${task.url}/v1/traces`, {
          headers: { 'content-type': 'application/json', 'x-svc-ingest-key': task.ingestKey },
          body: bodies[i]!,
          keepalive: false,
          timeoutMs: 60_000,
        });
        if (status !== 200) throw new Error(`otlp ingest answered ${status}`);
      }
    }),
  );
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { ms, delivered: task.bodies * task.spansPerBody, dropped: 0, clientCpuUs: used.user + used.system };
}

async function sdk(task: Extract<IngestClientTask, { kind: 'sdk' }>): Promise<IngestClientResult> {
  const tracer = createTracer({
    service: 'bench-sdk',
    exporter: { dsn: task.dsn, batchSize: task.batchSize, maxQueue: task.spans },
  });
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < task.spans; i++)
    tracer.startSpan(i % 8 === 0 ? 'GET /api/v1/items/:id' : 'db.query').end();
  await tracer.exporter.flush();
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  const { sent, dropped } = tracer.exporter.stats();
  await tracer.shutdown();
  return { ms, delivered: sent, dropped, clientCpuUs: used.user + used.system };
}

process.once('message', async (task: IngestClientTask) => {
  const result = task.kind === 'otlp' ? await otlp(task) : await sdk(task);
  process.send?.(result, () => process.exit(0));
});
