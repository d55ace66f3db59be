import type { z } from 'zod';
import type { BackendName, Capability, ToolContext } from './context';
import type { PagedAnswer } from './paged-answer';
import {
  answerBudgetFields,
  cursor,
  DEFAULT_MAX_RESULT_CHARS,
  isListOutput,
  listPathsOf,
  MAX_RESULT_CHARS_RANGE,
} from './schemas';

export interface ToolAnnotations {
  title: string;
  readOnlyHint: true;
  destructiveHint: false;
  idempotentHint: boolean;
  openWorldHint: false;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolAnnotations;
  readonly capability: Capability;
  readonly backend: BackendName;
  /** An overview (aggregate) of its group: the advice clients get names it as a first call. */
  readonly overview: boolean;
  /** Characters of JSON one answer carries at most unless a call asks for another budget. */
  readonly maxResultChars: number;
  /** A typical call's parameters, for the tool reference (docs/tools.md); valid input by test. */
  readonly example: Readonly<z.input<I>>;
  /**
   * Its answers are pages (a `listOf` list, or entries paged by `pages`): its `cursor` is an offset
   * the backend's tool route opens. Decided from the output as the tool declared it, before
   * defineTool added the budget fields (`next_cursor` among them) every output may carry.
   */
  readonly paged: boolean;
  /** Set by a tool that pages an answer other than a list's items (its count and budget cut). */
  readonly pages?: PagedAnswer;
  readonly handler: (input: z.output<I>, ctx: ToolContext) => Promise<z.input<O>>;
}

// Any tool, whatever its schemas (handlers are only ever called with validated input).
// biome-ignore lint/suspicious/noExplicitAny: erasing the handler's parameter type is the point
export type AnyTool = ToolDefinition<any, any>;

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  capability: Capability;
  backend: BackendName;
  /** True for the aggregate to call before the group's detail tools (log.aggregate, crash.stats). */
  overview?: boolean;
  /** A typical call's parameters, shown in the tool reference; the catalog tests parse it. */
  example: z.input<I>;
  /** For an answer that pages something other than `items` (trace.get's spans): see PagedAnswer. */
  pages?: PagedAnswer<z.output<O>>;
  /** Default DEFAULT_MAX_RESULT_CHARS; answers over the call's budget are cut by the executor. */
  maxResultChars?: number;
  /** Defaults to true: every tool is a query. */
  idempotent?: boolean;
  /**
   * Omitted for the usual case: the validated input is forwarded to the backend's internal tool
   * endpoint (which validates against the same schema) and its answer is checked against `output`.
   */
  handler?: (input: z.output<I>, ctx: ToolContext) => Promise<z.input<O>>;
}

const NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** The one way to declare a tool. Every tool is read-only by construction. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<I, O>,
): ToolDefinition<I, O> {
  if (!NAME.test(spec.name)) throw new Error(`tool name "${spec.name}" is not a dotted identifier`);
  return Object.freeze({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: withCursor(spec.input, spec.output),
    output: withBudgetFields(spec.output),
    capability: spec.capability,
    backend: spec.backend,
    overview: spec.overview ?? false,
    maxResultChars: resultBudget(spec.name, spec.maxResultChars),
    paged: isListOutput(spec.output),
    example: Object.freeze(spec.example),
    ...(spec.pages ? { pages: spec.pages as unknown as PagedAnswer } : {}),
    handler: spec.handler ?? forwardToBackend<I, O>(spec.name, spec.backend),
    annotations: Object.freeze({
      title: spec.title,
      readOnlyHint: true as const,
      destructiveHint: false as const,
      idempotentHint: spec.idempotent ?? true,
      openWorldHint: false as const,
    }),
  });
}

/**
 * A tool whose answer has lists takes a `cursor`, declared here once rather than by every tool: a
 * list page's `next_cursor`, or the continuation of an answer a result budget cut. The handlers
 * never read it: the executor and the backends' tool route turn it into an offset (a list) or cut
 * lists' positions (any other answer), so the input's static type leaves it out.
 */
function withCursor<I extends z.ZodObject>(input: I, output: z.ZodObject): I {
  const continues = isListOutput(output) || listPathsOf(output).length > 0;
  return continues ? (input.safeExtend({ cursor }) as unknown as I) : input;
}

/**
 * A cut answer says so in its own schema (`truncated`, `omitted`, `next_cursor`, `continued`); a
 * tool's own `truncated` or `next_cursor` stays as it declared it.
 */
function withBudgetFields<O extends z.ZodObject>(output: O): O {
  const added = Object.fromEntries(
    Object.entries(answerBudgetFields).filter(([field]) => !(field in output.shape)),
  );
  return output.extend(added) as unknown as O;
}

function resultBudget(name: string, chars = DEFAULT_MAX_RESULT_CHARS): number {
  const [min, max] = MAX_RESULT_CHARS_RANGE;
  if (!Number.isInteger(chars) || chars < min || chars > max) {
    throw new Error(`tool ${name}: maxResultChars must be an integer from ${min} to ${max}`);
  }
  return chars;
}

/** A tool served by a backend's internal tool endpoint: input goes there as-is, answer comes back. */
function forwardToBackend<I extends z.ZodObject, O extends z.ZodObject>(
  name: string,
  backend: BackendName,
): (input: z.output<I>, ctx: ToolContext) => Promise<z.input<O>> {
  return async (input, ctx) =>
    (await ctx.backend(backend).callTool(ctx.projectId, name, input, {
      ...ctx.request,
      actor: {
        token_id: ctx.principal.tokenId,
        user_id: ctx.principal.userId,
        org_id: ctx.principal.orgId,
        transport: ctx.transport,
        capabilities: [...ctx.principal.capabilities],
      },
    })) as z.input<O>;
}
