import type { ClickHouse } from '@svc/clickhouse';
import { type AnyServedTool, type ServedTool, serveWith } from '@svc/tool-server/serve';
import type { z } from 'zod';

export interface CoreToolContext {
  ch: ClickHouse;
  /** From the path; the first filter of every query. */
  projectId: string;
  /** Epoch ms; windows end here. */
  now: number;
  signal?: AbortSignal;
  /** Where a list's page starts in its order: the offset the call's cursor carries (0 without one). */
  offset?: number;
}

/**
 * A tool as the core serves it: the input and output schemas are the very ones of the gateway's
 * tool definition (from @svc/tools-*), and `run` answers with the result.
 */
export type CoreTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> = ServedTool<
  CoreToolContext,
  I,
  O
>;

export type AnyCoreTool = AnyServedTool<CoreToolContext>;

/** Binds a query function to a published tool definition, reusing its name and schemas. */
export const serve = serveWith<CoreToolContext>();
