import { createTracerIn, type Tracer, type TracerOptions, type TracerRuntime } from '@svc/sdk-core';
import { asyncScope } from './context';
import { createExporter } from './exporter';

const nodeRuntime: TracerRuntime = { scope: asyncScope, exporter: createExporter, logSource: 'backend' };

/**
 * Spans for one Node service. A trace is kept or dropped by its id alone (isSampled, the same in
 * every service and in browsers), and a span that ends with status error is reported even when
 * its trace was dropped (errors are never sampled away); the core then weighs it 1. The active span follows async
 * work (AsyncLocalStorage).
 */
export function createTracer(options: TracerOptions): Tracer {
  return createTracerIn(nodeRuntime, options);
}
