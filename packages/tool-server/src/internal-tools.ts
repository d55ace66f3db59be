import { randomUUID } from 'node:crypto';
import type { Metrics } from '@svc/metrics';
import { type AnyTool, type CallActor, NotFoundError, parseInput, UserInputError } from '@svc/tool-kit';
import express, { type Router } from 'express';
import { callActorOf, INTERNAL_PROJECT_ID } from './internal-auth';

/** One tool call as a backend service (recall, copilot) receives it from the gateway or stdio. */
export interface InternalToolCall {
  projectId: string;
  /** Who the call is made for (X-Svc-Actor): required, a backend records or acts on it. */
  actor: CallActor;
  input: unknown;
  requestId: string;
  /** Aborted when the caller goes away before the answer is sent. */
  signal: AbortSignal;
}

export interface InternalTool {
  definition: AnyTool;
  run(call: InternalToolCall): Promise<unknown>;
}

export interface InternalToolsOptions {
  tools: readonly InternalTool[];
  metrics: Metrics;
  /** The counter of calls by tool and outcome, e.g. `recall_tool_calls_total`. */
  counter: string;
  /** The outcome label of a successful answer (default `ok`); copilot counts verdicts. */
  outcomeOf?: (answer: unknown) => string;
}

/**
 * POST /v1/projects/:project_id/tools/:tool (mounted under /internal, docs/internal-api.md) for a
 * backend service's tools. The input is validated again with the tool's own schema (the gateway
 * is not the only caller), and so is the answer, before it leaves. Errors go to the app's error
 * handler.
 */
export function internalToolRoutes(options: InternalToolsOptions): Router {
  const byName = new Map(options.tools.map((t) => [t.definition.name, t]));
  const router = express.Router();
  const calls = options.metrics.counter(options.counter, 'Tool calls by tool and outcome', [
    'tool',
    'outcome',
  ]);
  router.post('/v1/projects/:project_id/tools/:tool', express.json({ limit: '64kb' }), async (req, res) => {
    const name = String(req.params.tool);
    let outcome = 'error';
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    try {
      const tool = byName.get(name);
      if (!tool) throw new NotFoundError('Unknown tool.');
      const projectId = String(req.params.project_id);
      if (!INTERNAL_PROJECT_ID.test(projectId)) throw new UserInputError('Invalid project id.');
      const input = parseInput(tool.definition.input, req.body ?? {}, name);
      const answer = tool.definition.output.parse(
        await tool.run({
          projectId,
          actor: callActorOf((h) => req.get(h)),
          input,
          requestId: req.get('x-request-id') ?? randomUUID(),
          signal: gone.signal,
        }),
      );
      res.json(answer);
      outcome = options.outcomeOf?.(answer) ?? 'ok';
    } catch (err) {
      if (err instanceof NotFoundError) outcome = 'unknown_tool';
      else if (err instanceof UserInputError) outcome = 'invalid_input';
      throw err;
    } finally {
      calls.inc({ tool: name.slice(0, 40), outcome });
    }
  });
  return router;
}
