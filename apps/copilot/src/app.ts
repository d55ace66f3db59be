import { selfTraceMiddleware, type Tracer } from '@svc/self-trace';
import { httpErrorHandler, notFoundHandler } from '@svc/tool-server/http-errors';
import { requireInternalSecret } from '@svc/tool-server/internal-auth';
import express, { type Express } from 'express';
import type { CopilotContext } from './context';
import { internalToolsRouter } from './routes/internal-tools';

export interface CopilotAppDeps extends CopilotContext {
  internalSecret: string;
  /** Self-tracing (SVC_SELF_TRACE_PROJECT): a server span per request. Absent: no middleware. */
  tracer?: Tracer;
}

/**
 * copilot: the verify tools behind the internal tool endpoint, and health. It holds no data of its
 * own: every verdict is read from the core's answers for the same project.
 */
export function createCopilotApp(deps: CopilotAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  if (deps.tracer) app.use(selfTraceMiddleware(deps.tracer));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', parser: deps.translator ? 'grammar+llm' : 'grammar' });
  });
  app.use('/internal', requireInternalSecret(deps.internalSecret));
  app.use('/internal', internalToolsRouter(deps));
  app.use(notFoundHandler());
  app.use(httpErrorHandler(deps.logger));
  return app;
}
