import { randomUUID } from 'node:crypto';
import { NotFoundError, parseInput, UserInputError } from '@svc/errors';
import type { Metrics } from '@svc/metrics';
import type { CallActor } from '@svc/tool-kit';
import express, { type RequestHandler, type Response, type Router } from 'express';
import { type CursorSeal, isListPage, withNextCursor } from './cursor';
import { callActorOf, INTERNAL_PROJECT_ID } from './internal-auth';
import { type AnyServedTool, isServed } from './serve';

/** One tool call as a backend service (the core, recall, copilot) receives it. */
export interface InternalToolCall {
  projectId: string;
  requestId: string;
  /** Aborted when the caller goes away before the answer is sent. */
  signal: AbortSignal;
  /**
   * Who the call is made for (X-Svc-Actor); a 400 when the header is missing or malformed. A
   * backend that records or acts on the caller asks for it before answering, so a call without
   * one is refused rather than recorded as nobody.
   */
  actor(): CallActor;
  /** Where a list tool's page starts: the offset its `cursor` carries, else 0. */
  offset: number;
}

/**
 * Admits a call and gives it the service's context: `answer(ctx)` runs the tool and writes its
 * answer, so whatever the call holds while admitted (a scheduler's slot) covers both.
 */
export type Admit<Ctx> = (
  call: InternalToolCall,
  tool: AnyServedTool<Ctx>,
  answer: (ctx: Ctx) => Promise<void>,
) => Promise<void>;

export interface InternalToolsOptions<Ctx> {
  /** Each bound through `serve`; any other is refused at start. */
  tools: readonly AnyServedTool<Ctx>[];
  admit: Admit<Ctx>;
  metrics: Metrics;
  /** The counter of calls by tool and outcome, e.g. `recall_tool_calls_total`. */
  counter: string;
  counterHelp?: string;
  /** The outcome label of a successful answer (default `ok`); copilot counts verdicts. */
  outcomeOf?: (answer: unknown) => string;
  /** The outcome label of a failed call (default: `unknown_tool`, `invalid_input`, else `error`). */
  errorOutcomeOf?: (err: unknown) => string;
  /** Checked before the body is read, for a service that guards this route alone. */
  guard?: RequestHandler;
  /** Largest input body (default 64kb). */
  bodyLimit?: string;
  /**
   * Whether the answer is checked against the tool's output schema before it leaves (default
   * true). The core skips it: its answers are built from the schema's own types and can be large,
   * and the gateway checks them off its event loop.
   */
  checkAnswer?: boolean;
  /** Writes the answer (default `res.json`). */
  send?: (res: Response, answer: unknown) => Promise<void>;
  /**
   * Whether an error means the call was dropped because its caller left: counted as `cancelled`
   * and not answered, nobody being there to read it.
   */
  abandoned?: (err: unknown) => boolean;
  /** The error the caller is told about (e.g. a budget stop in words a caller can act on). */
  mapError?: (err: unknown) => unknown;
  /**
   * Opens list tools' `cursor` and seals their `next_cursor` (keyed by the internal secret the
   * callers share); without it a list answers its first page and no cursor.
   */
  cursors?: CursorSeal;
}

function defaultErrorOutcome(err: unknown): string {
  if (err instanceof NotFoundError) return 'unknown_tool';
  if (err instanceof UserInputError) return 'invalid_input';
  return 'error';
}

function servedByName<Ctx>(tools: readonly AnyServedTool<Ctx>[]): ReadonlyMap<string, AnyServedTool<Ctx>> {
  const byName = new Map<string, AnyServedTool<Ctx>>();
  for (const tool of tools) {
    if (!isServed(tool)) throw new Error(`tool ${tool.name} is not bound through serve()`);
    if (byName.has(tool.name)) throw new Error(`duplicate tool ${tool.name}`);
    byName.set(tool.name, tool);
  }
  return byName;
}

/**
 * A call's page: the offset its cursor carries and its answer with the next page's cursor; bound to
 * the caller's token when the actor header names one (the gateway's calls always do).
 */
function pagingOf(
  seal: CursorSeal | undefined,
  tool: AnyServedTool<unknown>,
  projectId: string,
  input: Record<string, unknown>,
  actor: () => CallActor,
): { offset: number; next: <T>(answer: T) => T } | undefined {
  if (!seal || !tool.definition.paged) return undefined;
  let tokenId: string | null = null;
  try {
    tokenId = actor().token_id;
  } catch {
    // No actor (a direct internal caller): the cursor is bound to no token.
  }
  const binding = { tool: tool.name, projectId, tokenId, input };
  const offset = typeof input.cursor === 'string' ? seal.open(input.cursor, binding) : 0;
  return {
    offset,
    next: (answer) => {
      // A list's page counts its items; a tool paging something else (trace.get) says its length.
      const pages = tool.definition.pages;
      const length = isListPage(answer) ? answer.items.length : pages?.length(answer as never);
      if (length === undefined) return answer;
      return withNextCursor(answer as { has_more?: unknown }, length, seal, binding, offset) as typeof answer;
    },
  };
}

/**
 * POST /v1/projects/:project_id/tools/:tool (mounted under /internal, docs/internal-api.md): the
 * one internal tool endpoint of every backend service. The input is validated again with the tool's
 * own schema (the gateway is not the only caller). Errors go to the app's error handler.
 */
export function internalToolRoutes<Ctx>(options: InternalToolsOptions<Ctx>): Router {
  const byName = servedByName(options.tools);
  const send = options.send ?? (async (res: Response, answer: unknown) => void res.json(answer));
  const errorOutcomeOf = options.errorOutcomeOf ?? defaultErrorOutcome;
  const router = express.Router();
  const calls = options.metrics.counter(
    options.counter,
    options.counterHelp ?? 'Tool calls by tool and outcome',
    ['tool', 'outcome'],
  );
  const guards = options.guard ? [options.guard] : [];
  const body = express.json({ limit: options.bodyLimit ?? '64kb' });
  router.post('/v1/projects/:project_id/tools/:tool', ...guards, body, async (req, res) => {
    const tool = byName.get(String(req.params.tool));
    // Only known names become label values: a caller cannot grow the series without bound.
    const label = tool ? tool.name : '(unknown)';
    let outcome = 'error';
    const gone = new AbortController();
    // 'close' also fires once the answer is sent; aborting then would stop nothing.
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    try {
      if (!tool) throw new NotFoundError('Unknown tool.');
      const projectId = String(req.params.project_id);
      if (!INTERNAL_PROJECT_ID.test(projectId)) throw new UserInputError('Invalid project id.');
      const input = parseInput(tool.input, req.body ?? {}, tool.name);
      const actor = () => callActorOf((h) => req.get(h));
      const paging = pagingOf(options.cursors, tool, projectId, input, actor);
      const call: InternalToolCall = {
        projectId,
        requestId: req.get('x-request-id') ?? randomUUID(),
        signal: gone.signal,
        actor,
        offset: paging?.offset ?? 0,
      };
      await options.admit(call, tool, async (ctx) => {
        const result = paging ? paging.next(await tool.run(ctx, input)) : await tool.run(ctx, input);
        const answer = options.checkAnswer === false ? result : tool.output.parse(result);
        outcome = options.outcomeOf?.(answer) ?? 'ok';
        await send(res, answer);
      });
    } catch (err) {
      if (gone.signal.aborted && options.abandoned?.(err)) {
        outcome = 'cancelled';
        return;
      }
      const told = options.mapError ? options.mapError(err) : err;
      outcome = errorOutcomeOf(told);
      throw told;
    } finally {
      calls.inc({ tool: label, outcome });
    }
  });
  return router;
}
