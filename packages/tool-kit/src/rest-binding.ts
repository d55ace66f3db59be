import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import type { Principal } from './context';
import { NotFoundError, PayloadTooLargeError, type ServiceError, UserInputError } from './errors';
import type { ToolExecutor } from './executor';
import { toHttpError } from './http-status';
import type { Logger } from './logger';

export interface RestBindingOptions {
  executor: ToolExecutor;
  /** Set by the transport's auth middleware; the binding never authenticates by itself. */
  principalOf: (res: Response) => Principal;
  requestIdOf: (req: Request, res: Response) => string;
}

/** POST /v1/tools/:name: the tool's parameter object in, its result JSON out. */
export function createRestRouter(options: RestBindingOptions): Router {
  const router = express.Router();
  router.post('/v1/tools/:name', async (req, res, next) => {
    try {
      if (!req.is('application/json')) {
        throw new UserInputError('Content-Type must be application/json.');
      }
      const body: unknown = req.body;
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
        throw new UserInputError('The request body must be a JSON object of the tool parameters.');
      }
      const result = await options.executor.call({
        principal: options.principalOf(res),
        tool: String(req.params.name),
        args: body ?? {},
        transport: 'rest',
        requestId: options.requestIdOf(req, res),
        ...(req.get('traceparent') ? { traceparent: req.get('traceparent') } : {}),
      });
      res.status(200).json(result);
    } catch (err) {
      next(err);
    }
  });
  return router;
}

/** Body parsing problems expressed in the error hierarchy. */
function fromBodyParser(err: unknown): ServiceError | undefined {
  const e = err as { type?: string; status?: number };
  if (e?.type === 'entity.too.large') return new PayloadTooLargeError('The request body is too large.');
  if (e?.type === 'entity.parse.failed') return new UserInputError('The request body is not valid JSON.');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new UserInputError('Unsupported request body encoding.');
  }
  return undefined;
}

/** The one place HTTP error answers are written. */
export function httpErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const mapped = fromBodyParser(err) ?? err;
    const answer = toHttpError(mapped);
    if (answer.status >= 500) logger.error({ err, path: req.path }, 'request failed');
    if (res.headersSent) return;
    res.status(answer.status).set(answer.headers).json(answer.body);
  };
}

export function notFoundHandler(): express.RequestHandler {
  return (_req, _res, next) => next(new NotFoundError('Not found.'));
}
