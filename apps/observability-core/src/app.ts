import type { ClickHouse } from '@svc/clickhouse';
import type { IngestKeyResolver } from '@svc/ingest-auth';
import type { Metrics } from '@svc/metrics';
import { selfTraceMiddleware, type Tracer } from '@svc/self-trace';
import type { Logger } from '@svc/tool-kit';
import { httpErrorHandler, notFoundHandler } from '@svc/tool-server/http-errors';
import express, { type Express } from 'express';
import { createDebugFilesRouter } from './http/debug-files-router';
import { createIngestRouter } from './http/ingest-router';
import { createInternalIngestRouter } from './http/internal-ingest-router';
import { createToolsRouter, type QueryBudget } from './http/tools-router';
import { coalesceInserts } from './ingest/store/insert-coalescer';
import { createBatchWriter } from './ingest/store/write-batch';
import { defaultPerProject, FairScheduler, type SchedulerLimits } from './scheduling/fair-scheduler';
import type { Retention } from './storage/migrations';
import { createTempDebugFileStore, type DebugFileStore } from './symbolication/debug-file-store';
import { createSymbolicator, type Symbolicator } from './symbolication/symbolicator';
import type { AnyCoreTool } from './tools/core-tool';
import { createCoreToolRegistry } from './tools/registry';

export interface CoreAppDeps {
  ch: ClickHouse;
  ingestKeys: IngestKeyResolver;
  internalSecret: string;
  logger: Logger;
  metrics: Metrics;
  /** Epoch ms; tests pin it so windows are reproducible. */
  now?: () => number;
  /** Defaults to every tool the core serves. */
  tools?: readonly AnyCoreTool[];
  maxIngestBodyBytes?: number;
  /** As migrated; ingest refuses records the TTL would drop. Defaults to DEFAULT_RETENTION. */
  retention?: Retention;
  /** Where uploaded debug files are kept; defaults to a fresh temp directory (tests). */
  debugFiles?: DebugFileStore;
  /** Largest accepted debug file upload; default 50 MB. */
  maxDebugFileBytes?: number;
  /** Shared with the symbolication worker (one cache of parsed files); created here when absent. */
  symbolicator?: Symbolicator;
  /** How tool queries share the engine; defaults from the client (defaultQueryLimits). */
  queries?: Partial<SchedulerLimits & QueryBudget>;
  /**
   * Self-tracing (SVC_SELF_TRACE_PROJECT): a server span per request, a span per tool call and per
   * query. Absent: no middleware, no span.
   */
  tracer?: Tracer;
}

const DEFAULT_MAX_INGEST_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Defaults of the query scheduler and budgets for a client (docs/decisions.md, "Fair sharing of the
 * core").
 */
export function defaultQueryLimits(ch: Pick<ClickHouse, 'concurrency'>): SchedulerLimits & QueryBudget {
  const concurrency = Number.isFinite(ch.concurrency) ? ch.concurrency : 16;
  return {
    concurrency,
    perProject: defaultPerProject(concurrency),
    queuedPerProject: 64,
    // Below the gateway's 15 s backend timeout, so the core answers (and stops the query) first.
    callBudgetMs: 12_000,
    maxMemoryUsageBytes: 2 * 1024 ** 3,
  };
}

/** observability-core: ingest, the internal tool endpoint and health (docs/internal-api.md). */
export function createCoreApp(deps: CoreAppDeps): Express {
  const now = deps.now ?? Date.now;
  const debugFiles = deps.debugFiles ?? createTempDebugFileStore();
  const symbolicator =
    deps.symbolicator ?? createSymbolicator({ ch: deps.ch, files: debugFiles, logger: deps.logger });
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // Answers to POSTs, never cached: an ETag would only cost a hash of every body.
  app.set('etag', false);
  if (deps.tracer) app.use(selfTraceMiddleware(deps.tracer));

  app.get('/healthz', async (_req, res) => {
    const up = await deps.ch.ping().catch(() => false);
    res.status(up ? 200 : 503).json({ status: up ? 'ok' : 'unavailable' });
  });
  // Concurrent requests' inserts go in together (insert-coalescer.ts), whichever ingest route they
  // came by: the engine's fixed cost per insert, not the rows, is what limits ingest under load.
  const ingestCh = coalesceInserts(deps.ch);
  const write = createBatchWriter({
    ch: ingestCh,
    logger: deps.logger,
    metrics: deps.metrics,
    now,
    symbolicator,
  });
  app.use(
    createIngestRouter({
      ch: ingestCh,
      ingestKeys: deps.ingestKeys,
      logger: deps.logger,
      metrics: deps.metrics,
      now,
      maxBodyBytes: deps.maxIngestBodyBytes,
      ...(deps.retention ? { retention: deps.retention } : {}),
      write,
    }),
  );
  app.use(
    createDebugFilesRouter({
      ch: deps.ch,
      ingestKeys: deps.ingestKeys,
      files: debugFiles,
      logger: deps.logger,
      metrics: deps.metrics,
      now,
      ...(deps.maxDebugFileBytes ? { maxBytes: deps.maxDebugFileBytes } : {}),
    }),
  );
  // The stack's own services send their spans here (SVC_SELF_TRACE_PROJECT), through the same writer.
  app.use(
    createInternalIngestRouter({
      internalSecret: deps.internalSecret,
      write,
      now,
      ...(deps.retention ? { retention: deps.retention } : {}),
      maxBodyBytes: deps.maxIngestBodyBytes ?? DEFAULT_MAX_INGEST_BODY_BYTES,
    }),
  );
  const queries = { ...defaultQueryLimits(deps.ch), ...deps.queries };
  app.use(
    createToolsRouter({
      ch: deps.ch,
      tools: createCoreToolRegistry(deps.tools),
      internalSecret: deps.internalSecret,
      metrics: deps.metrics,
      now,
      scheduler: new FairScheduler(queries, deps.metrics),
      budget: queries,
      ...(deps.tracer ? { tracer: deps.tracer } : {}),
    }),
  );
  app.use(notFoundHandler());
  app.use(httpErrorHandler(deps.logger));
  return app;
}
