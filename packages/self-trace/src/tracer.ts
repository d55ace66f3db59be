import {
  createExporter,
  type ExportError,
  type Exporter,
  type ExportTransport,
  type Tracer,
} from '@svc/sdk-core';
import { createTracer, nodeSend } from '@svc/sdk-node';

/** The services of the stack, as their spans name them (`service`). */
export type SelfTraceService = 'gateway' | 'observability-core' | 'identity' | 'recall' | 'copilot';

/** What a delivery failure is told to: a pino logger fits. */
export interface SelfTraceLogger {
  warn(fields: object, message: string): void;
}

export interface SelfTracerOptions {
  service: SelfTraceService;
  /** The project the spans go to; unset: self-tracing is off and no tracer is made. */
  project?: string | undefined;
  /** The core's base URL (required with a project). */
  coreUrl?: string | undefined;
  internalSecret: string;
  /** Head sampling in [0, 1]; 0 or unset keeps every trace. */
  sampleRate?: number | undefined;
  /** Told, at most once a minute, when spans could not be delivered. */
  logger?: SelfTraceLogger;
  /** A partial batch waits at most this long (default 1 s). */
  flushIntervalMs?: number;
  /** Where spans go instead of the core (tests). */
  exporter?: Exporter;
}

/**
 * The stack's services hold the internal secret, not an ingest key: their batches go to the core's
 * internal ingest route for the project (docs/internal-api.md), the secret in X-Internal-Secret.
 * The IngestTarget's `secret` carries it; `keyId` is unused.
 */
export const internalIngestTransport: ExportTransport = {
  headers: (target) => ({ 'x-internal-secret': target.secret }),
  url: (target) => `${target.endpoint}/internal/v1/projects/${encodeURIComponent(target.projectId)}/ingest`,
  // As the Node SDK sends: node:http on kept-alive connections, cheaper than fetch a batch.
  send: nodeSend,
};

const FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * A core that is down fails every batch: one line a minute says so, with what was lost meanwhile
 * (the service's own logger names the service).
 */
function failureReporter(logger: SelfTraceLogger | undefined): (e: ExportError) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  let lost = 0;
  return (e) => {
    lost += e.records;
    const now = Date.now();
    if (!logger || now - lastAt < FAILURE_LOG_INTERVAL_MS) return;
    lastAt = now;
    logger.warn(
      { reason: e.reason, status: e.status, records_lost: lost },
      'self-trace: spans not delivered to the core',
    );
    lost = 0;
  };
}

/**
 * A Tracer for one service of the stack, exporting into the self-trace project through the core's
 * internal ingest route, or undefined when no project is set: then nothing is made, and callers
 * install no middleware and start no span (self-tracing off costs nothing).
 *
 * The tracer is @svc/sdk-node's (consistent head sampling, error spans always kept, the active span
 * in AsyncLocalStorage), its exporter sdk-core's (bounded queue, batches, retries, never throws
 * into the service) with the internal-secret transport. It sends with the global fetch and never
 * patches it: in the standalone every service shares one process.
 */
export function createSelfTracer(options: SelfTracerOptions): Tracer | undefined {
  if (!options.project) return undefined;
  if (!options.coreUrl && !options.exporter)
    throw new Error(`self-trace of ${options.service}: a project without a core URL`);
  const exporter =
    options.exporter ??
    createExporter(
      {
        dsn: {
          endpoint: options.coreUrl!.replace(/\/+$/, ''),
          keyId: 'internal',
          secret: options.internalSecret,
          projectId: options.project,
        },
        // A trace of the stack is worth less than the stack: few retries, and a bounded wait.
        maxAttempts: 3,
        timeoutMs: 5_000,
        ...(options.flushIntervalMs ? { flushIntervalMs: options.flushIntervalMs } : {}),
        onError: failureReporter(options.logger),
      },
      internalIngestTransport,
    );
  return createTracer({ service: options.service, sampleRate: options.sampleRate ?? 0, exporter });
}
