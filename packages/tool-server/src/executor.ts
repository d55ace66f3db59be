import { randomUUID } from 'node:crypto';
import type { AuditEntry, AuditSink, AuditStatus } from '@svc/audit';
import {
  asServiceError,
  BackendUnavailableError,
  InternalError,
  invalidInputError,
  NotFoundError,
  parseInput,
  type ServiceError,
} from '@svc/errors';
import { type BoundCounter, type BoundHistogram, bindEach, type Metrics } from '@svc/metrics';
import {
  type AnswerAttempt,
  type AnyTool,
  type BackendName,
  type Backends,
  type Logger,
  type Principal,
  type ToolContext,
  type ToolRequestContext,
  type Transport,
  UnparsedAnswer,
} from '@svc/tool-kit';
import type { AnswerBudget } from './answer-budget';
import { checkAnswer, checkAnswerBytes } from './answer-check';
import { type AnswerChecker, AnswerWorkersUnavailableError } from './answer-workers';
import { CallHoldings } from './call-holdings';
import type { CursorBinding, CursorSeal, ListPositions } from './cursor';
import type { ToolRegistry } from './registry';
import { clientBudgetOf, continuedAt, withinBudget } from './result-budget';
import { ToolAnswer } from './tool-answer';

export interface ExecutorDeps {
  registry: ToolRegistry;
  audit: AuditSink;
  backends: Backends;
  /** Deployed and healthy right now. An undeployed backend's tools are never visible. */
  isBackendAvailable: (backend: BackendName) => boolean;
  logger: Logger;
  metrics: Metrics;
  now?: () => number;
  /**
   * Bytes of large backend answers handled at once (answer-budget.ts); without one, answers are
   * read as they come (tests, the stdio server's single client).
   */
  answerBudget?: AnswerBudget;
  /**
   * Checks large backend answers off the event loop (answer-workers.ts); without it, and for
   * tools it does not know, answers are checked inline.
   */
  answerWorkers?: AnswerChecker;
  /**
   * Opens list tools' cursors (keyed by the internal secret the backends share): a cursor of
   * another call is refused here, before any backend is asked. Without it a cursor goes to the
   * backend unopened.
   */
  cursors?: CursorSeal;
}

export interface CallRequest {
  principal: Principal;
  tool: string;
  args: unknown;
  transport: Transport;
  requestId: string;
  traceparent?: string;
  signal?: AbortSignal;
  /**
   * The call's result budget (result-budget.ts): present, the answer is cut to `value` as the
   * client sent it (MCP `_meta`, a REST header, checked here and named `named` in a 400), or to
   * the tool's own budget when the client sent none. Absent, the answer is not cut: a REST call
   * without the header, whose clients are programs reading whole answers as before.
   */
  resultBudget?: { value: unknown; named: string };
}

const MAX_AUDITED_PARAMS_CHARS = 8192;
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The first key anywhere in the arguments that names an object's machinery, as an input issue. JSON.parse keeps such
 * keys as data, but any copy through a plain object would turn `__proto__` into a prototype; they
 * are refused on every binding alike, before validation.
 */
function forbiddenKey(value: unknown, path = '', depth = 0): { path: string; message: string } | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  // No tool takes input nested this deep; refusing it also bounds this walk.
  if (depth > MAX_DEPTH) return { path, message: `nests deeper than ${MAX_DEPTH} levels` };
  for (const key of Object.keys(value)) {
    const at = path ? `${path}.${key}` : key;
    if (RESERVED_KEYS.has(key)) return { path: at, message: 'is a reserved key and not accepted' };
    const nested = forbiddenKey((value as Record<string, unknown>)[key], at, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

const MAX_DEPTH = 32;
/** For callers that cannot go away (no client connection to lose). */
const NEVER_ABORTED = new AbortController().signal;

function auditStatusOf(err: ServiceError): AuditStatus {
  switch (err.code) {
    case 'invalid_input':
      return 'invalid_input';
    case 'not_found':
      return 'not_found';
    case 'backend_unavailable':
      return 'unavailable';
    default:
      return 'error';
  }
}

function auditedParams(args: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(args);
  } catch {
    return { unserializable: true };
  }
  if (text === undefined) return null;
  if (text.length <= MAX_AUDITED_PARAMS_CHARS) return args;
  return { truncated: true, preview: text.slice(0, MAX_AUDITED_PARAMS_CHARS) };
}

/** What a cursor of this call is bound to. */
function cursorBinding(tool: AnyTool, input: Record<string, unknown>, principal: Principal): CursorBinding {
  return { tool: tool.name, projectId: principal.projectId, tokenId: principal.tokenId, input };
}

/**
 * The transport-independent part of the pipeline (docs/architecture.md, "The request pipeline",
 * steps 7 to 11): visibility, strict validation, the handler, output validation and the audit
 * record, which is durable before the result is returned. MCP (over HTTP and stdio) and REST all
 * go through `execute`.
 */
export class ToolExecutor {
  readonly #deps: ExecutorDeps;
  readonly #now: () => number;
  readonly #calls: (tool: string, transport: string, status: string) => BoundCounter;
  readonly #latency: (tool: string, transport: string) => BoundHistogram;

  constructor(deps: ExecutorDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    // Bound per label set (the registry's tools, the transports, the outcomes): a call adds to a
    // number instead of prom-client building a key from a label object.
    const callLabels = ['tool', 'transport', 'status'];
    this.#calls = bindEach(
      deps.metrics.counter('tool_calls_total', 'Tool calls by outcome', callLabels),
      callLabels,
    );
    const latencyLabels = ['tool', 'transport'];
    this.#latency = bindEach(
      deps.metrics.histogram('tool_call_duration_seconds', 'Tool call latency', latencyLabels),
      latencyLabels,
    );
  }

  get registry(): ToolRegistry {
    return this.#deps.registry;
  }

  isVisible(tool: AnyTool, principal: Principal): boolean {
    if (!this.#deps.isBackendAvailable(tool.backend)) return false;
    if (tool.capability === 'base') return true;
    // Controlled tools fail closed without an org to evaluate capabilities against.
    return principal.orgId !== null && principal.capabilities.has(tool.capability);
  }

  visibleTools(principal: Principal): AnyTool[] {
    return this.#deps.registry.list().filter((tool) => this.isVisible(tool, principal));
  }

  /** Published catalog: every registered tool whose backend is deployed (no caller known). */
  publishedTools(): AnyTool[] {
    return this.#deps.registry.list().filter((tool) => this.#deps.isBackendAvailable(tool.backend));
  }

  /** The call's checked result as an object (for tests); see `execute`. */
  async call(request: CallRequest): Promise<Record<string, unknown>> {
    return (await this.execute(request)).value;
  }

  /**
   * Runs a call through the pipeline. The answer may be JSON text the answer workers made (a large
   * backend answer): the REST binding sends it as it is.
   */
  async execute(request: CallRequest): Promise<ToolAnswer> {
    const started = this.#now();
    const toolName = String(request.tool).slice(0, 200);
    const tool = this.#deps.registry.get(toolName);
    let result: ToolAnswer | undefined;
    let failure: ServiceError | undefined;
    // Answer bytes held for this call, given back once its result is out of the executor's hands.
    const holdings = new CallHoldings();
    try {
      if (!tool || !this.isVisible(tool, request.principal)) {
        throw new NotFoundError(`Unknown tool: ${toolName}`);
      }
      const input = this.#validateInput(tool, request.args) as Record<string, unknown>;
      const budget = clientBudgetOf(
        request.resultBudget?.value,
        tool.name,
        request.resultBudget?.named ?? '',
      );
      const { offset, continued } = this.#openCursor(tool, input, request.principal);
      const ctx = this.#context(request, holdings);
      // A continuation's cursor is this executor's alone: the backend answers the call afresh.
      const { cursor: _continuation, ...asked } = input;
      const raw = await tool.handler(continued ? asked : input, ctx);
      const whole =
        raw instanceof UnparsedAnswer
          ? await this.#checkUnparsed(tool, raw, ctx.logger)
          : ToolAnswer.ofValue(this.#validateOutput(tool, raw, ctx.logger));
      const checked = continued ? ToolAnswer.ofValue(continuedAt(whole.value, continued)) : whole;
      const seal = this.#deps.cursors;
      const binding = cursorBinding(tool, input, request.principal);
      result = request.resultBudget
        ? withinBudget(
            tool,
            checked,
            budget ?? tool.maxResultChars,
            seal ? { seal, binding, offset, ...(continued ? { continued } : {}) } : undefined,
          )
        : checked;
    } catch (err) {
      failure = asServiceError(err);
      if (failure.code === 'internal' && !request.signal?.aborted) {
        this.#deps.logger.error({ err, tool: toolName, request_id: request.requestId }, 'tool call failed');
      }
    }
    const durationMs = Math.max(0, Math.round(this.#now() - started));
    const status: AuditStatus = failure ? auditStatusOf(failure) : 'ok';
    const metricTool = tool ? tool.name : '(unknown)';
    this.#calls(metricTool, request.transport, status).inc();
    this.#latency(metricTool, request.transport).observe(durationMs / 1000);
    try {
      await this.#audit(request, toolName, status, durationMs);
    } finally {
      // The bindings serialize the result in the same turn as this returns: released here, the
      // bytes are free as the result becomes garbage.
      holdings.releaseAll();
    }
    if (failure) throw failure;
    return result as ToolAnswer;
  }

  #validateInput(tool: AnyTool, args: unknown): unknown {
    const refused = forbiddenKey(args);
    if (refused !== undefined) throw invalidInputError(tool.name, [refused]);
    // No arguments at all is an empty object; anything else (null included) must be one.
    return parseInput(tool.input, args === undefined ? {} : args, tool.name);
  }

  /**
   * Where the call's `cursor` starts it: a list page's offset (0 without one), or the positions a
   * cut answer's lists go on from. A cursor of another call is a 400 naming it.
   */
  #openCursor(
    tool: AnyTool,
    input: Record<string, unknown>,
    principal: Principal,
  ): { offset: number; continued?: ListPositions } {
    const seal = this.#deps.cursors;
    if (typeof input.cursor !== 'string') return { offset: 0 };
    const binding = cursorBinding(tool, input, principal);
    if (tool.paged) return { offset: seal ? seal.open(input.cursor, binding) : 0 };
    if (!seal) {
      throw invalidInputError(tool.name, [{ path: 'cursor', message: 'is not a cursor this service made' }]);
    }
    return { offset: 0, continued: seal.openContinuation(input.cursor, binding) };
  }

  #validateOutput(tool: AnyTool, raw: unknown, logger: Logger): Record<string, unknown> {
    const checked = checkAnswer(tool, raw);
    if (!checked.ok) this.#invalidOutput(tool, checked.reason, checked.issues, logger);
    return checked.value;
  }

  /** A large answer's bytes: checked in a worker when one serves the tool, else here. */
  async #checkUnparsed(tool: AnyTool, answer: UnparsedAnswer, logger: Logger): Promise<ToolAnswer> {
    const workers = this.#deps.answerWorkers;
    if (workers?.serves(tool.name)) {
      let checked: Awaited<ReturnType<AnswerChecker['check']>> | undefined;
      try {
        checked = await workers.check(tool.name, answer.bytes);
      } catch (err) {
        // No worker to take it: this thread checks it. A worker that died on it lost it.
        if (!(err instanceof AnswerWorkersUnavailableError)) {
          logger.error({ err, tool: tool.name }, 'answer worker lost the answer');
          throw new InternalError('The result could not be checked.');
        }
      }
      if (checked?.ok) return ToolAnswer.ofJson(checked.json);
      // A worker without this tool (never so when it serves it) leaves the check to this thread.
      if (checked && checked.reason !== 'unknown_tool') {
        this.#invalidOutput(tool, checked.reason, checked.issues, logger);
      }
    }
    const checked = checkAnswerBytes(tool, answer.bytes);
    if (checked.ok) return ToolAnswer.ofValue(checked.value);
    this.#invalidOutput(tool, checked.reason, checked.issues, logger);
  }

  #invalidOutput(tool: AnyTool, reason: string, issues: unknown[] | undefined, logger: Logger): never {
    // A backend answering outside the tool's output schema is our bug, never the caller's: log,
    // don't leak.
    logger.error({ tool: tool.name, reason, issues }, 'tool output failed its schema');
    throw new InternalError('The tool produced an invalid result.');
  }

  #context(request: CallRequest, holdings: CallHoldings): ToolContext {
    const backends = this.#deps.backends;
    const budget = this.#deps.answerBudget;
    const workers = this.#deps.answerWorkers;
    const projectId = request.principal.projectId;
    const parentLogger = this.#deps.logger;
    let logger: Logger | undefined;
    const signal = request.signal ?? NEVER_ABORTED;
    // The tool request context, made once here and passed on as it is to a backend.
    const forwarded: ToolRequestContext = {
      requestId: request.requestId,
      ...(request.traceparent ? { traceparent: request.traceparent } : {}),
      signal,
      // Every large answer comes unparsed when there is a pool: asking the pool whether it serves
      // the tool is left to the answer's arrival, since that is what starts a worker.
      ...(workers ? { unparsedFrom: workers.fromBytes } : {}),
      ...(budget
        ? {
            reserveAnswer: async (bytes: number | undefined, attempt?: AnswerAttempt) => {
              // A small answer is never counted: no signal is combined for it (every lookup).
              if (!budget.counts(bytes)) return;
              const signals = [holdings.signal, request.signal, attempt?.signal].filter(
                (s) => s !== undefined,
              );
              const release = await budget.reserve(
                { project: projectId, org: request.principal.orgId },
                bytes,
                AbortSignal.any(signals),
              );
              holdings.add(release);
            },
          }
        : {}),
    };
    return {
      projectId: request.principal.projectId,
      principal: request.principal,
      transport: request.transport,
      signal,
      request: forwarded,
      // Made when first asked for: most calls log nothing, and a child logger costs its bindings.
      get logger() {
        logger ??= parentLogger.child({ request_id: request.requestId });
        return logger;
      },
      backend(name: BackendName) {
        const caller = backends[name];
        if (!caller) throw new BackendUnavailableError(name);
        return caller;
      },
    };
  }

  async #audit(request: CallRequest, tool: string, status: AuditStatus, durationMs: number): Promise<void> {
    const entry: AuditEntry = {
      id: randomUUID(),
      at: new Date(this.#now()).toISOString(),
      token_id: request.principal.tokenId,
      user_id: request.principal.userId,
      org_id: request.principal.orgId,
      project_id: request.principal.projectId,
      tool: tool || '(empty)',
      transport: request.transport,
      status,
      duration_ms: durationMs,
      request_id: request.requestId,
      params: auditedParams(request.args),
    };
    try {
      await this.#deps.audit.write([entry]);
    } catch (err) {
      // No audit, no answer: the result (or error detail) must not leave unrecorded.
      this.#deps.logger.error({ err, request_id: request.requestId }, 'audit write failed');
      throw new BackendUnavailableError('audit');
    }
  }
}
