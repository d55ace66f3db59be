import type { IngestKeyResolver } from '@svc/ingest-auth';
import { selfTraceMiddleware, type Tracer } from '@svc/self-trace';
import { httpErrorHandler, notFoundHandler } from '@svc/tool-server/http-errors';
import { requireInternalSecret } from '@svc/tool-server/internal-auth';
import express, { type Express } from 'express';
import type { ConsoleSessions } from './console-sessions';
import type { RecallContext } from './context';
import { consoleRouter } from './routes/console';
import { deviceRouter } from './routes/device';
import { internalToolsRouter } from './routes/internal-tools';

export interface RecallAppDeps extends RecallContext {
  internalSecret: string;
  ingestKeys: IngestKeyResolver;
  consoleSessions: ConsoleSessions;
  /** Self-tracing (SVC_SELF_TRACE_PROJECT): a server span per request. Absent: no middleware. */
  tracer?: Tracer;
}

/** recall: device uploads and polls, the console side, the internal tool endpoint, health. */
export function createRecallApp(deps: RecallAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  if (deps.tracer) app.use(selfTraceMiddleware(deps.tracer));
  app.get('/healthz', async (_req, res) => {
    await deps.db.ping();
    res.json({ status: 'ok' });
  });
  app.use('/internal', requireInternalSecret(deps.internalSecret));
  app.use('/internal', internalToolsRouter(deps, deps.internalSecret));
  app.use('/device', deviceRouter(deps, deps.ingestKeys));
  app.use('/console', consoleRouter(deps, deps.consoleSessions));
  app.use(notFoundHandler());
  app.use(httpErrorHandler(deps.logger));
  return app;
}
