import type { ToolDefinition } from '@svc/tool-kit';
import type { z } from 'zod';

/**
 * A published tool definition bound to the function that answers it in one service. The input and
 * output schemas are the definition's own, so the service and the gateway cannot disagree on them.
 * `Ctx` is what the service gives every call (the core: its engine and clock; recall: its stores
 * and the caller).
 */
export interface ServedTool<Ctx, I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  readonly definition: ToolDefinition<I, O>;
  readonly name: string;
  readonly input: I;
  readonly output: O;
  run(ctx: Ctx, input: z.output<I>): Promise<z.input<O>>;
}

// biome-ignore lint/suspicious/noExplicitAny: a service's table holds tools of every input type
export type AnyServedTool<Ctx> = ServedTool<Ctx, any, any>;

// Every tool bound by `serve`: the internal tool routes refuse any other, so a handler cannot be
// cast onto a definition it does not answer (the compiler checks `run` against the schemas only here).
const served = new WeakSet<object>();

/** Whether `tool` was bound through `serve` (and so typed against its definition's schemas). */
export function isServed(tool: object): boolean {
  return served.has(tool);
}

/**
 * The one way to bind a handler to a tool definition, for a service whose calls get a `Ctx`:
 * `const serve = serveWith<CoreToolContext>()`, then `serve(logSearch, async (ctx, input) => ...)`
 * per tool file. The handler's input and answer are typed by the definition's schemas.
 */
export function serveWith<Ctx>() {
  return function serve<I extends z.ZodObject, O extends z.ZodObject>(
    definition: ToolDefinition<I, O>,
    run: (ctx: Ctx, input: z.output<I>) => Promise<z.input<O>>,
  ): ServedTool<Ctx, I, O> {
    const tool: ServedTool<Ctx, I, O> = Object.freeze({
      definition,
      name: definition.name,
      input: definition.input,
      output: definition.output,
      run,
    });
    served.add(tool);
    return tool;
  };
}
