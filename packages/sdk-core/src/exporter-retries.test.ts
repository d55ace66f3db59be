import { createExporter } from './exporter';
import type { ExportError } from './exporter-types';
import { ingestSignature } from './ingest-signing';
import { ingestTransport } from './ingest-transport';
import type { SpanRecord } from './records';
import { type IngestContract, startIngestContract } from './testing/ingest-contract';
import { nodeHmacHex } from './testing/signed-ingest';

// Retries of the batching exporter against a loopback server that keeps the core's rules of
// retries and replays (docs/ingest.md): each batch carries one Idempotency-Key on all its tries,
// so a batch whose answer was lost is stored once and counted delivered.

const SECRET = 'contract-ingest-secret-0123456789';
let core: IngestContract;
beforeEach(async () => {
  core = await startIngestContract({ secret: SECRET });
});
afterEach(() => core.close());

const sign = (secret: string, timestamp: number, body: string) =>
  ingestSignature(nodeHmacHex, secret, timestamp, body);

const span = (i: number): SpanRecord => ({
  trace_id: 'a'.repeat(32),
  span_id: (i + 1).toString(16).padStart(16, '0'),
  kind: 'server',
  status: 'ok',
  operation: 'GET /',
  start_time: Date.now(),
  duration_ms: 1,
});

function exporterTo(more: { timeoutMs?: number } = {}) {
  const errors: ExportError[] = [];
  const exporter = createExporter(
    {
      dsn: { endpoint: core.url, keyId: 'key_contract', secret: SECRET, projectId: 'p' },
      batchSize: 10,
      flushIntervalMs: 60_000,
      maxAttempts: 10,
      retryBaseMs: 5,
      // Sent one after the other: which try of which batch the server saw is plain.
      concurrency: 1,
      onError: (e) => void errors.push(e),
      ...more,
    },
    ingestTransport(sign),
  );
  return { exporter, errors };
}

/** Each span id the server stored, with how often. */
const storedCounts = () => {
  const counts = new Map<string, number>();
  for (const s of core.stored('spans'))
    counts.set(String(s.span_id), (counts.get(String(s.span_id)) ?? 0) + 1);
  return counts;
};

it('sends one key per batch on every try: a batch whose answer was lost is stored once and counted delivered', async () => {
  const { exporter, errors } = exporterTo();
  core.loseAnswers(2);
  for (let i = 0; i < 30; i++) exporter.addSpan(span(i));
  await exporter.flush();

  expect(errors).toEqual([]);
  expect(exporter.stats()).toEqual({ sent: 30, dropped: 0, queued: 0 });
  const counts = storedCounts();
  expect(counts.size).toBe(30);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
  // Three batches, each under its own key; the two whose answers were lost went again under theirs.
  const keys = core.requests.map((r) => r.idempotencyKey);
  expect(keys.every((k) => typeof k === 'string' && /^[\x21-\x7e]{1,255}$/.test(k))).toBe(true);
  expect(new Set(keys).size).toBe(3);
  expect(core.requests.map((r) => r.status)).toEqual(['answer lost', 200, 'answer lost', 200, 200]);
  expect(core.requests.filter((r) => r.replayed).map((r) => r.idempotencyKey)).toEqual([keys[0], keys[2]]);
  for (const key of new Set(keys))
    expect(new Set(core.requests.filter((r) => r.idempotencyKey === key).map((r) => r.body)).size).toBe(1);
  await exporter.shutdown();
});

it('a retry that arrives while the first try is still being written (409) is tried again, not dropped', async () => {
  // The first try outlasts the exporter's request timeout: the retry finds it still being written.
  const { exporter, errors } = exporterTo({ timeoutMs: 100 });
  const held = core.holdNext();
  for (let i = 0; i < 10; i++) exporter.addSpan(span(i));
  const flushed = exporter.flush();
  await held.arrived;
  const started = Date.now();
  while (!core.requests.some((r) => r.status === 409) && Date.now() - started < 120_000)
    await new Promise((r) => setTimeout(r, 5));
  held.release();
  await flushed;

  expect(errors).toEqual([]);
  expect(exporter.stats()).toEqual({ sent: 10, dropped: 0, queued: 0 });
  expect([...storedCounts().values()]).toEqual(Array(10).fill(1));
  expect(core.requests.at(-1)).toMatchObject({ status: 200, replayed: true });
  expect(new Set(core.requests.map((r) => r.idempotencyKey)).size).toBe(1);
  await exporter.shutdown();
});

it('hands over what it has not delivered, the batch on the wire under its key, and tries none of it again', async () => {
  const { exporter, errors } = exporterTo();
  const held = core.holdNext();
  for (let i = 0; i < 25; i++) exporter.addSpan(span(i));
  await held.arrived;
  const taken = exporter.takeUndelivered();
  expect(taken.map((b) => b.records)).toEqual([10, 10, 5]);
  expect(taken[0]!.idempotencyKey).toBe(core.requests[0]!.idempotencyKey);
  expect(taken[0]!.body).toBe(core.requests[0]!.body);
  expect(exporter.stats().queued).toBe(0);

  // The try on the wire is stored, and its answer lost: the exporter does not try it again.
  core.loseAnswers(1);
  held.release();
  await exporter.flush();
  expect(core.requests).toHaveLength(1);
  expect(exporter.stats()).toEqual({ sent: 0, dropped: 0, queued: 0 });
  expect(errors).toEqual([]);

  // Whoever took them sends them later, each under its key: the one that arrived is a repeat.
  const statuses: unknown[] = [];
  for (const batch of taken) {
    const ts = Math.floor(Date.now() / 1000);
    const res = await fetch(`${core.url}/ingest/v1/batch`, {
      method: 'POST',
      headers: {
        'x-svc-key': 'key_contract',
        'x-svc-timestamp': String(ts),
        'x-svc-signature': sign(SECRET, ts, batch.body),
        'idempotency-key': batch.idempotencyKey,
      },
      body: batch.body,
    });
    statuses.push({ status: res.status, replayed: ((await res.json()) as { replayed?: boolean }).replayed });
  }
  expect(statuses).toEqual([
    { status: 200, replayed: true },
    { status: 200, replayed: undefined },
    { status: 200, replayed: undefined },
  ]);
  expect([...storedCounts().values()]).toEqual(Array(25).fill(1));
  await exporter.shutdown();
});
