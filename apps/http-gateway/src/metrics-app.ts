import { silentLogger } from '@svc/logger';
import type { Exposition } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import { httpErrorHandler, notFoundHandler } from '@svc/tool-server/http-errors';
import express, { type Express } from 'express';

/** Prometheus scrape endpoint, served on its own port so it is never exposed with the tools. */
export function createMetricsApp(metrics: Exposition, logger: Logger = silentLogger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', async (_req, res, next) => {
    try {
      res.type(metrics.contentType).send(await metrics.render());
    } catch (err) {
      next(err);
    }
  });
  app.use(notFoundHandler());
  app.use(httpErrorHandler(logger));
  return app;
}
