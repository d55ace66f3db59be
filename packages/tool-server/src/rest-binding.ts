import { UserInputError } from '@svc/errors';
import type { Principal, Transport } from '@svc/tool-kit';
import express, { type Request, type Response, type Router } from 'express';
import type { ToolExecutor } from './executor';
import { allowOnly } from './http-errors';
import { RESULT_BUDGET_HEADER } from './result-budget';

export interface RestBindingOptions {
  executor: ToolExecutor;
  /** Set by the transport's auth middleware; the binding never authenticates by itself. */
  principalOf: (res: Response) => Principal;
  requestIdOf: (req: Request, res: Response) => string;
  /**
   * What the call is audited as; default `rest`. The gateway names the web console's calls
   * (`console`) from what authentication found, never from anything the client sends.
   */
  transportOf?: (req: Request, res: Response) => Transport;
}

export const REST_TOOL_PATH = '/v1/tools/:name';

/** POST /v1/tools/:name: the tool's parameter object in, its result JSON out; other methods 405. */
export function createRestRouter(options: RestBindingOptions): Router {
  const router = express.Router();
  router.post(REST_TOOL_PATH, async (req, res, next) => {
    try {
      if (!req.is('application/json')) {
        throw new UserInputError('Content-Type must be application/json.');
      }
      const body: unknown = req.body;
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
        throw new UserInputError('The request body must be a JSON object of the tool parameters.');
      }
      // A client that disconnects cancels the call, down to the backend's query.
      const abort = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) abort.abort();
      });
      const answer = await options.executor.execute({
        principal: options.principalOf(res),
        tool: String(req.params.name),
        args: body ?? {},
        transport: options.transportOf?.(req, res) ?? 'rest',
        requestId: options.requestIdOf(req, res),
        ...(req.get('traceparent') ? { traceparent: req.get('traceparent') } : {}),
        signal: abort.signal,
        ...(req.get(RESULT_BUDGET_HEADER) === undefined
          ? {}
          : { resultBudget: { value: req.get(RESULT_BUDGET_HEADER), named: 'X-Max-Result-Chars' } }),
      });
      // JSON the answer workers made is sent as it is: this thread never parses a large answer.
      if (answer.bytes) res.status(200).type('application/json').send(answer.bytes);
      else res.status(200).json(answer.value);
    } catch (err) {
      next(err);
    }
  });
  allowOnly(router, REST_TOOL_PATH, ['POST']);
  return router;
}
