import type { ClickHouse } from '@svc/clickhouse';
import { ConflictError, UnauthorizedError, UserInputError } from '@svc/errors';
import {
  authenticateIngest,
  authenticateIngestKey,
  INGEST_KEY_HEADER,
  type IngestKeyResolver,
} from '@svc/ingest-auth';
import type { Metrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import express, { type Request, type Router } from 'express';
import { readJsonBody } from '../ingest/json/json-body';
import { OTLP_SIGNALS, OTLP_SUCCESS, otlpEncodingOf, otlpRecords } from '../ingest/otlp/otlp-request';
import { parseIdempotencyKey } from '../ingest/replay/idempotency-key';
import { createReplayGuard, type ReplayDecision, type ReplayGuard } from '../ingest/replay/replay-guard';
import type { RecordType, ValidBatch } from '../ingest/schemas';
import type { BatchWriter } from '../ingest/store/write-batch';
import { validateBatchInSlices } from '../ingest/validate/validate-batch';
import { defaultSlicing, type IngestSlicing, jsonSlicesOf } from '../ingest/work-slices';
import type { Retention } from '../storage/migrations';
import { createIngestCors } from './ingest-cors';
import { ingestBodyOf, readIngestBody } from './read-body';

export interface IngestRouterDeps {
  /** Where rows go: in the app, one coalescing inserter shared by every ingest route. */
  ch: ClickHouse;
  ingestKeys: IngestKeyResolver;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
  /** Largest accepted body; beyond it 413. Default 10 MB. */
  maxBodyBytes?: number;
  /** Records older than their table's retention are refused (they would vanish by TTL). */
  retention?: Retention;
  /** Stores a validated batch: one writer for every ingest route (ingest/store/write-batch.ts). */
  write: BatchWriter;
  /** Refuses replays and makes retries idempotent; default: one on `ch`. */
  replayGuard?: ReplayGuard;
  /** How each request slices its work (work-slices.ts); tests count the pauses. */
  slicing?: () => IngestSlicing;
}

/** The key id of an X-Svc-Ingest-Key header that authenticated (`<key_id>:<secret>`). */
const ingestKeyIdOf = (req: Request) => (req.get(INGEST_KEY_HEADER) ?? '').trim().split(':', 1)[0]!;

/**
 * POST /ingest/v1/batch, and OTLP/HTTP (protobuf or JSON) at POST /v1/traces, /v1/logs and
 * /v1/metrics (docs/ingest.md); CORS for browsers on these routes only (ingest-cors.ts).
 */
export function createIngestRouter(deps: IngestRouterDeps): Router {
  const router = express.Router();
  const rejected = deps.metrics.counter('core_ingest_rejected_total', 'Rejected ingest requests', ['reason']);
  const replays = deps.metrics.counter('core_ingest_repeats_total', 'Repeated ingest requests', ['outcome']);
  const { ch } = deps;
  const guard =
    deps.replayGuard ??
    createReplayGuard({
      ch,
      now: deps.now,
      // An embedded store is this process's alone: its memory of accepted requests is complete.
      ...(ch.embedded ? { soleWriterSince: deps.now() } : {}),
      onLoadFailed: (err) =>
        deps.logger.warn({ err }, 'could not load recent ingest requests; repeats are looked up instead'),
    });
  // Raw bytes, whatever the content type, as sent (the signature covers them) and inflated per
  // Content-Encoding (what is parsed; the OTLP routes hash it); each at most the limit.
  const rawBody = readIngestBody(deps.maxBodyBytes ?? 10 * 1024 * 1024);
  const slicing = deps.slicing ?? defaultSlicing;
  const bounds = () => ({ now: deps.now(), ...(deps.retention ? { retention: deps.retention } : {}) });
  // Browsers (an Origin header): checked against the named key before anything else is read.
  const cors = createIngestCors({
    ingestKeys: deps.ingestKeys,
    onRefused: (reason, details) => {
      rejected.inc({ reason: 'forbidden_origin' });
      deps.logger.warn({ reason, ...details }, 'ingest refused for a browser origin');
    },
  });
  for (const path of ['/ingest/v1/batch', ...OTLP_SIGNALS.map((signal) => signal.path)])
    router.options(path, cors.preflight);

  const { write } = deps;

  /** A fresh request's batch written and remembered; a repeat answered with what was stored. */
  async function store(decision: ReplayDecision, batch: ValidBatch, projectId: string) {
    if (decision.kind === 'replayed') {
      replays.inc({ outcome: 'replayed' });
      return { counts: decision.accepted, replayed: true };
    }
    let counts: Record<RecordType, number>;
    try {
      counts = await write(batch, projectId, decision.tokenFor);
    } catch (err) {
      decision.release();
      throw err;
    }
    await decision.accepted(counts);
    return { counts, replayed: false };
  }

  /** Counts and logs a refused request (the error handler answers it). */
  function refused(err: unknown, context: Record<string, unknown>): void {
    if (err instanceof UnauthorizedError) {
      rejected.inc({ reason: 'unauthorized' });
      deps.logger.warn({ reason: err.reason, ...context }, 'ingest refused');
    } else if (err instanceof UserInputError) {
      rejected.inc({ reason: 'invalid_input' });
    } else if (err instanceof ConflictError) {
      replays.inc({ outcome: 'refused' });
    }
  }

  router.post('/ingest/v1/batch', cors.post, rawBody, async (req, res, next) => {
    try {
      const { sent, content } = ingestBodyOf(res);
      const projectId = await authenticateIngest(req.get.bind(req), sent, deps);
      const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
      const slices = slicing();
      const batch = await validateBatchInSlices(await readJsonBody(content, jsonSlicesOf(slices)), bounds(), {
        slices: slices.records,
      });
      const decision = await guard.begin({
        keyId: req.get('x-svc-key') as string,
        projectId,
        timestamp: req.get('x-svc-timestamp') as string,
        signature: req.get('x-svc-signature') as string,
        idempotencyKey,
        body: sent,
      });
      const { counts, replayed } = await store(decision, batch, projectId);
      res.status(200).json(replayed ? { accepted: counts, replayed } : { accepted: counts });
    } catch (err) {
      refused(err, { key_id: req.get('x-svc-key')?.slice(0, 128) });
      next(err);
    }
  });
  // OTLP/HTTP, protobuf or JSON (docs/ingest.md, "OTLP traces, logs and metrics"): OpenTelemetry
  // SDKs and collectors send here with a fixed X-Svc-Ingest-Key header; they cannot sign bodies. A
  // retried body is stored once: the guard remembers accepted bodies by their hash. A gzip body is
  // inflated (Content-Encoding) and the inflated body is what is hashed.
  for (const signal of OTLP_SIGNALS)
    router.post(signal.path, cors.post, rawBody, async (req, res, next) => {
      try {
        const projectId = await authenticateIngestKey(req.get.bind(req), deps);
        const encoding = otlpEncodingOf(req.get('content-type'));
        const { content } = ingestBodyOf(res);
        const slices = slicing();
        const mapped = await otlpRecords(signal, encoding, content, slices);
        const batch = await validateBatchInSlices({ [signal.type]: mapped.records }, bounds(), {
          slices: slices.records,
          pathOf: mapped.pathOf,
          fieldPathOf: mapped.fieldPathOf,
          mapped: true,
        });
        await store(
          await guard.beginBody({ keyId: ingestKeyIdOf(req), projectId, body: content }),
          batch,
          projectId,
        );
        const answer = OTLP_SUCCESS[encoding];
        res.status(200).type(answer.contentType).send(answer.body);
      } catch (err) {
        refused(err, { path: signal.path });
        next(err);
      }
    });
  return router;
}
