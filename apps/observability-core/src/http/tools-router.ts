import { type ClickHouse, exceededBudget, QueryCancelledError } from '@svc/clickhouse';
import { QueryBudgetError, UserInputError } from '@svc/errors';
import type { Metrics } from '@svc/metrics';
import type { Span, Tracer } from '@svc/self-trace';
import { CursorSeal } from '@svc/tool-server/cursor';
import { requireInternalSecret } from '@svc/tool-server/internal-auth';
import { type Admit, internalToolRoutes } from '@svc/tool-server/internal-tools';
import express, { type Router } from 'express';
import { budgetedClickHouse } from '../scheduling/budgeted-clickhouse';
import type { FairScheduler } from '../scheduling/fair-scheduler';
import type { AnyCoreTool, CoreToolContext } from '../tools/core-tool';
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

/**
 * The whole call holds its project's slot of the fair scheduler, building and writing the answer
 * included: a large answer is main-thread work, and a flood must not queue unbounded amounts of it
 * in front of another project's call (docs/decisions.md, "Fair sharing of the core"). Its queries
 * run within the call's time and memory budget, at the priority the scheduler gave it.
 */
function scheduledAdmission(deps: ToolsRouterDeps): Admit<CoreToolContext> {
  return async (call, tool, answer) => {
    const deadline = Date.now() + deps.budget.callBudgetMs;
    const span = deps.tracer?.startSpan(`tool ${tool.name}`, { attributes: { tool: tool.name } });
    const asked = performance.now();
    const run = () =>
      deps.scheduler.run(call.projectId, deadline, call.signal, async ({ priority }) => {
        // The fair scheduler's queue, in front of the session pool's (each query's span has that one).
        span?.setAttribute('scheduler.wait_ms', Math.round((performance.now() - asked) * 1000) / 1000);
        span?.setAttribute('scheduler.priority', priority);
        const budgeted = budgetedClickHouse(deps.ch, {
          deadline,
          signal: call.signal,
          maxMemoryUsageBytes: deps.budget.maxMemoryUsageBytes,
          priority,
        });
        const ch = deps.tracer ? tracedClickHouse(budgeted, deps.tracer) : budgeted;
        await answer({
          ch,
          projectId: call.projectId,
          now: deps.now(),
          signal: call.signal,
          offset: call.offset,
        });
      });
    if (span && deps.tracer) await traced(deps.tracer, span, run);
    else await run();
  };
}

/** POST /internal/v1/projects/:project_id/tools/:tool (docs/internal-api.md). */
export function createToolsRouter(deps: ToolsRouterDeps): Router {
  const router = express.Router();
  router.use(
    '/internal',
    internalToolRoutes({
      tools: [...deps.tools.values()],
      admit: scheduledAdmission(deps),
      metrics: deps.metrics,
      counter: 'core_tool_calls_total',
      counterHelp: 'Core tool calls by outcome',
      errorOutcomeOf: () => 'error',
      // Only this route: the core's other internal routes check the secret themselves.
      guard: requireInternalSecret(deps.internalSecret),
      bodyLimit: '256kb',
      checkAnswer: false,
      send: (res, answer) => sendJsonInSlices(res, 200, answer),
      // The caller left; its queries were dropped or stopped. Nobody is there to answer.
      abandoned: (err) => err instanceof QueryCancelledError,
      mapError: (err) => budgetError(err, deps.budget) ?? err,
      // Cursors expire by the wall clock, whatever clock the data's windows use.
      cursors: new CursorSeal(deps.internalSecret),
    }),
  );
  return router;
}
