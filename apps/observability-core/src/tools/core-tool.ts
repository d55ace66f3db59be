import type { ClickHouse } from '@svc/clickhouse';
import type { ToolDefinition } from '@svc/tool-kit';
import type { z } from 'zod';

export interface CoreToolContext {
  ch: ClickHouse;
  /** From the path; the first filter of every query. */
  projectId: string;
  /** Epoch ms; windows end here. */
  now: number;
  signal?: AbortSignal;
}

/**
 * A tool as the core serves it: the input and output schemas are the very ones of the gateway's
 * tool definition (from @svc/tools-*), and `run` answers with the result.
 */
export interface CoreTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  input: I;
  output: O;
  run(ctx: CoreToolContext, input: z.output<I>): Promise<z.input<O>>;
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of every input type
export type AnyCoreTool = CoreTool<any, any>;

/** Binds a query function to a published tool definition, reusing its name and schemas. */
export function serve<I extends z.ZodObject, O extends z.ZodObject>(
  definition: ToolDefinition<I, O>,
  run: CoreTool<I, O>['run'],
): CoreTool<I, O> {
  return { name: definition.name, input: definition.input, output: definition.output, run };
}
