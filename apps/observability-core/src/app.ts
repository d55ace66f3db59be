import type { ClickHouse } from '@svc/clickhouse';
import type { Metrics } from '@svc/metrics';
import { httpErrorHandler, type Logger, notFoundHandler } from '@svc/tool-kit';
import express, { type Express } from 'express';
import { createIngestRouter } from './http/ingest-router';
import { createToolsRouter } from './http/tools-router';
import type { IngestKeyResolver } from './ingest/key-resolver';
import type { Retention } from './storage/migrations';
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
}

/** observability-core: ingest, the internal tool endpoint and health (docs/internal-api.md). */
export function createCoreApp(deps: CoreAppDeps): Express {
  const now = deps.now ?? Date.now;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  app.get('/healthz', async (_req, res) => {
    const up = await deps.ch.ping().catch(() => false);
    res.status(up ? 200 : 503).json({ status: up ? 'ok' : 'unavailable' });
  });
  app.use(
    createIngestRouter({
      ch: deps.ch,
      ingestKeys: deps.ingestKeys,
      logger: deps.logger,
      metrics: deps.metrics,
      now,
      maxBodyBytes: deps.maxIngestBodyBytes,
      ...(deps.retention ? { retention: deps.retention } : {}),
    }),
  );
  app.use(
    createToolsRouter({
      ch: deps.ch,
      tools: createCoreToolRegistry(deps.tools),
      internalSecret: deps.internalSecret,
      metrics: deps.metrics,
      now,
    }),
  );
  app.use(notFoundHandler());
  app.use(httpErrorHandler(deps.logger));
  return app;
}
