import { parseInput } from '@svc/errors';
import type { z } from 'zod';

/** Strict zod at the boundary: anything else is a 400 naming each field and what it expects. */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  return parseInput(schema, value, 'this request');
}
