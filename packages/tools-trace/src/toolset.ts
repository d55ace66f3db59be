import type { AnyTool } from '@svc/tool-kit';
import { traceAggregate } from './trace-aggregate';
import { traceGet } from './trace-get';
import { traceSearch } from './trace-search';

/** Tools of this group, in catalog order. Each lives in its own file. Capability vis_trace. */
export const traceTools: readonly AnyTool[] = [traceSearch, traceGet, traceAggregate];
