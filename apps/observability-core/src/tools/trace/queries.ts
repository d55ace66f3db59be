import type { AnyCoreTool } from '../core-tool';
import { traceAggregateQuery } from './trace-aggregate';
import { traceGetQuery } from './trace-get';
import { traceSearchQuery } from './trace-search';

/** Distributed traces as the core serves them (@svc/tools-trace; capability vis_trace). */
export const traceQueries: readonly AnyCoreTool[] = [traceSearchQuery, traceGetQuery, traceAggregateQuery];
