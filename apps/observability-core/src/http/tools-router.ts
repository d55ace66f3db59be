import { type ClickHouse, exceededBudget, QueryCancelledError } from '@svc/clickhouse';
import type { Metrics } from '@svc/metrics';
import type { Span, Tracer } from '@svc/self-trace';
import { NotFoundError, parseInput, QueryBudgetError, UserInputError } from '@svc/tool-kit';
import { INTERNAL_PROJECT_ID, requireInternalSecret } from '@svc/tool-server/internal-auth';
import express, { type Router } from 'express';
import { budgetedClickHouse } from '../scheduling/budgeted-clickhouse';
import type { FairScheduler } from '../scheduling/fair-scheduler';
import type { AnyCoreTool } from '../tools/core-tool';
import { tracedClickHouse } from '../tracing/traced-clickhouse';
import { sendJsonInSlices } from './send-json-in-slices';

export interface QueryBudget {
  /** Time a call may take, waiting for its turn included; the gateway's timeout must be longer. */
  callBudgetMs: number;
  /** Bytes one query may use. */
  maxMemoryUsageBytes: number;
}

export interface ToolsRouterDeps {
  ch: ClickHouse;
  tools: ReadonlyMap<string, AnyCoreTool>;
  internalSecret: string;
  metrics: Metrics;
  now: () => number;
  scheduler: FairScheduler;
  budget: QueryBudget;
  /** Self-tracing: a span per tool call (its wait for a slot included) and one per query. */
  tracer?: Tracer;
}

/** A query the engine stopped at a budget, in words a caller can act on. */
function budgetError(err: unknown, budget: QueryBudget): Error | undefined {
  const kind = exceededBudget(err);
  if (kind === 'time') {
    return new QueryBudgetError(
      `The query needed more than the ${Math.round(budget.callBudgetMs / 1000)} s one call may take and was stopped; narrow the time range or add filters.`,
      { details: { budget: 'time', limit_ms: budget.callBudgetMs } },
    );
  }
  if (kind === 'memory') {
    return new UserInputError(
      `The query needed more than the ${Math.round(budget.maxMemoryUsageBytes / 2 ** 20)} MB one query may use and was stopped; narrow the time range or add filters.`,
      { details: { budget: 'memory', limit_bytes: budget.maxMemoryUsageBytes } },
    );
  }
  return undefined;
}

/** Runs `call` with `span` active (its queries' spans are its children), then ends it. */
async function traced(tracer: Tracer, span: Span, call: () => Promise<void>): Promise<void> {
  try {
    await tracer.scope.run(span.context, call);
    span.setStatus('ok');
  } catch (err) {
    // Engine errors may quote the data: the type only (the message is for the core's log).
    span.setStatus('error');
    span.setAttribute('error.type', err instanceof Error ? err.name : typeof err);
    throw err;
  } finally {
    span.end();
  }
}

/** POST /internal/v1/projects/:project_id/tools/:tool (docs/internal-api.md). */
export function createToolsRouter(deps: ToolsRouterDeps): Router {
  const router = express.Router();
  const calls = deps.metrics.counter('core_tool_calls_total', 'Core tool calls by outcome', [
    'tool',
    'outcome',
  ]);
  router.post(
    '/internal/v1/projects/:project_id/tools/:tool',
    requireInternalSecret(deps.internalSecret),
    express.json({ limit: '256kb' }),
    async (req, res, next) => {
      const toolName = String(req.params.tool);
      const tool = deps.tools.get(toolName);
      const abort = new AbortController();
      // 'close' on the response fires when the answer is sent too; aborting then stops nothing.
      res.on('close', () => abort.abort());
      try {
        if (!tool) throw new NotFoundError('Unknown tool.');
        const projectId = String(req.params.project_id);
        if (!INTERNAL_PROJECT_ID.test(projectId)) throw new UserInputError('Invalid project id.');
        // Validated again here with the tool's own schema: the gateway is not the only caller.
        const input = parseInput(tool.input, req.body ?? {}, tool.name);
        // The whole call holds its project's slot, building and writing the answer included: a
        // large answer is main-thread work, and a flood must not queue unbounded amounts of it in
        // front of another project's call (docs/decisions.md, "Fair sharing of the core").
        const deadline = Date.now() + deps.budget.callBudgetMs;
        const span = deps.tracer?.startSpan(`tool ${tool.name}`, { attributes: { tool: tool.name } });
        const asked = performance.now();
        const call = () =>
          deps.scheduler.run(projectId, deadline, abort.signal, async ({ priority }) => {
            // The fair scheduler's queue, in front of the session pool's (each query's span has that one).
            span?.setAttribute('scheduler.wait_ms', Math.round((performance.now() - asked) * 1000) / 1000);
            span?.setAttribute('scheduler.priority', priority);
            const budgeted = budgetedClickHouse(deps.ch, {
              deadline,
              signal: abort.signal,
              maxMemoryUsageBytes: deps.budget.maxMemoryUsageBytes,
              priority,
            });
            const ch = deps.tracer ? tracedClickHouse(budgeted, deps.tracer) : budgeted;
            const result = await tool.run({ ch, projectId, now: deps.now(), signal: abort.signal }, input);
            calls.inc({ tool: tool.name, outcome: 'ok' });
            await sendJsonInSlices(res, 200, result);
          });
        if (span && deps.tracer) await traced(deps.tracer, span, call);
        else await call();
      } catch (err) {
        if (err instanceof QueryCancelledError && abort.signal.aborted) {
          // The caller left; its queries were dropped or stopped. Nobody is there to answer.
          calls.inc({ tool: toolName, outcome: 'cancelled' });
          return;
        }
        calls.inc({ tool: tool ? tool.name : '(unknown)', outcome: 'error' });
        next(budgetError(err, deps.budget) ?? err);
      }
    },
  );
  return router;
}
