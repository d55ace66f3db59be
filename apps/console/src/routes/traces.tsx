/** @jsxRuntime automatic @jsxImportSource preact */
import { TRACE_GET_MAX_SPANS } from '@svc/tools-trace';
import express, { type Response, type Router } from 'express';
import type { ConsoleDeps } from '../console-deps';
import { pageContext } from '../page-context';
import type { PageContext } from '../pages/layout';
import { sendPage } from '../pages/layout';
import { traceSearchRequest } from '../pages/trace-filters';
import {
  type ToolProblem,
  type TraceGetResult,
  TraceListPage,
  TraceProblemPage,
  type TraceSearchResult,
  TraceWaterfallPage,
} from '../pages/traces';
import { sessionOf } from '../session';
import { answerOf, UNAVAILABLE_TOOL_HINT } from '../tool-answers';

// Both pages call the gateway's tools with the session's own tool token (tool-calls.ts): what the
// gateway refuses (bad filters, vis_trace off, the core down) is shown on the page with its
// status, never as a broken page.

type Outcome<T> = { ok: true; result: T } | { ok: false; problem: ToolProblem };

/** The gateway's refusal in words: its messages are the stack's own wording, safe to show. */
export function problemOf(status: number, message: string): ToolProblem {
  if (status === 403 || status === 404) {
    return {
      status,
      message: `Traces are not available here (${message}). ${UNAVAILABLE_TOOL_HINT} The trace tools need the vis_trace capability.`,
    };
  }
  if (status >= 500) return { status, message: `The trace service could not answer: ${message}` };
  return { status, message };
}

async function callTool<T>(
  deps: ConsoleDeps,
  res: Response,
  ctx: PageContext,
  tool: string,
  input: Record<string, unknown>,
): Promise<Outcome<T>> {
  const session = sessionOf(res).token;
  const answer = await answerOf(deps.tools, { session, projectId: ctx.projectId, tool, input });
  if (answer.ok) return { ok: true, result: answer.result as T };
  return { ok: false, problem: problemOf(answer.status, answer.error.message) };
}

/** The trace pages: `/traces` (filtered list) and `/traces/:trace_id` (waterfall). */
export function traceRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();

  router.get('/traces', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    const request = traceSearchRequest(req.query);
    if (!request.ok) {
      const problem = { status: 400, message: request.problem };
      return sendPage(res, <TraceListPage ctx={ctx} values={request.values} problem={problem} />, 400);
    }
    const outcome = await callTool<TraceSearchResult>(deps, res, ctx, 'trace.search', request.input);
    if (!outcome.ok) {
      return sendPage(
        res,
        <TraceListPage ctx={ctx} values={request.values} problem={outcome.problem} />,
        outcome.problem.status,
      );
    }
    sendPage(res, <TraceListPage ctx={ctx} values={request.values} result={outcome.result} />);
  });

  router.get('/traces/:trace_id', async (req, res) => {
    const ctx = pageContext(deps, req, res);
    // The largest page: the waterfall shows up to that many spans, as it did before trace.get paged.
    const outcome = await callTool<TraceGetResult>(deps, res, ctx, 'trace.get', {
      trace_id: req.params.trace_id,
      limit: TRACE_GET_MAX_SPANS,
    });
    if (!outcome.ok) {
      return sendPage(res, <TraceProblemPage ctx={ctx} problem={outcome.problem} />, outcome.problem.status);
    }
    if (!outcome.result.found) {
      const problem = { status: 404, message: 'This project has no trace with this id.' };
      return sendPage(res, <TraceProblemPage ctx={ctx} problem={problem} />, 404);
    }
    sendPage(res, <TraceWaterfallPage ctx={ctx} trace={outcome.result} />);
  });

  return router;
}
