import {
  type BreakerOptions,
  backendClientMaker,
  createToolBackends,
  DEFAULT_TIMEOUT_MS,
  type HealthMonitor,
} from '@svc/backend-client';
import {
  createBatchingAuditSink,
  createCachingIdentityClient,
  createHttpAuditSink,
  createIdentityClient,
  createInvalidationSubscriber,
  type InvalidationSubscriber,
} from '@svc/identity-client';
import type { Metrics } from '@svc/metrics';
import { createSelfTracer, type Tracer } from '@svc/self-trace';
import { allTools, catalogToolsets, catalogViews, investigationGuides } from '@svc/tool-catalog';
import type { AnyTool, Logger } from '@svc/tool-kit';
import { AnswerWorkers, CursorSeal, Toolsets } from '@svc/tool-server';
import type { Express } from 'express';
import { createGatewayApp, type GatewayApp } from './app';
import type { GatewayConfig } from './config';
import { createMetricsApp } from './metrics-app';
import { resourcePortMismatch } from './oauth-protected-resource';

const HEALTH_INTERVAL_MS = 15_000;
/** Answers this long or longer are checked in a worker: on the loop, one costs a few ms and more. */
const ANSWER_WORKER_FROM_BYTES = 64 * 1024;
/** The workers' Linux nice value: the event loop, which answers every small call, comes first. */
const ANSWER_WORKER_NICENESS = 10;
/** Each worker's heap: room for the largest answer the answer budget lets through, parsed. */
const ANSWER_WORKER_HEAP_MB = 128;

/** The worker module beside this one: answer-worker.ts from sources, answer-worker.js in a bundle. */
function answerWorkerModule(): URL {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`./answer-worker.${ext}`, import.meta.url);
}

export interface WiredGateway {
  app: GatewayApp;
  metricsApp: Express;
  healthMonitor: HealthMonitor;
  /** identity's invalidation channel (token cache, sessions of revoked tokens). */
  subscriber: InvalidationSubscriber;
  /** Self-tracing's tracer, when SVC_SELF_TRACE_PROJECT is set (shut down by close()). */
  tracer: Tracer | undefined;
  /** Stops the monitor, ends MCP sessions, closes pooled sockets. Servers are the caller's. */
  close(): Promise<void>;
}

export interface WireOptions {
  logger: Logger;
  metrics: Metrics;
  tools?: readonly AnyTool[];
  breaker?: BreakerOptions;
  healthIntervalMs?: number;
  /**
   * The answer workers' module; default the one beside this file. A gateway run from sources in a
   * process that cannot compile TypeScript itself (tests) gives a built one.
   */
  answerWorkerModule?: URL;
}

/** Builds the gateway and its backend clients from configuration; used by main.ts and the standalone. */
export function wireGateway(config: GatewayConfig, options: WireOptions): WiredGateway {
  const { logger, metrics } = options;
  const mismatch = resourcePortMismatch(config);
  if (mismatch) logger.warn({ event: 'public_url_port_mismatch' }, mismatch);
  const tracer = createSelfTracer({
    service: 'gateway',
    internalSecret: config.internalSecret,
    logger,
    ...config.selfTrace,
  });
  const client = backendClientMaker({
    internalSecret: config.internalSecret,
    metrics,
    logger,
    ...(tracer ? { tracer } : {}),
    ...(options.breaker ? { breaker: options.breaker } : {}),
  });
  // Introspection and audit have separate breakers: a flood of bad tokens must not trip audit.
  const identityClient = client('identity', config.identityUrl, DEFAULT_TIMEOUT_MS.identity);
  const auditClient = client('audit', config.identityUrl, DEFAULT_TIMEOUT_MS.identity);
  const tools = createToolBackends({
    client,
    coreUrl: config.coreUrl,
    recallUrl: config.recallUrl,
    copilotUrl: config.copilotUrl,
    watchCore: true,
    alsoWatched: [{ name: 'identity', client: identityClient, required: true }],
    healthIntervalMs: options.healthIntervalMs ?? HEALTH_INTERVAL_MS,
    logger,
  });
  const { healthMonitor } = tools;

  // identity's invalidation channel: the token cache answers only while it holds a lease on it
  // (SVC_TOKEN_CACHE=0 turns the cache off), and a revoked token's MCP sessions are closed.
  const introspection = createIdentityClient(identityClient, logger);
  const cache = config.tokenCache
    ? createCachingIdentityClient(introspection, () => subscriber, { metrics })
    : undefined;
  let app: GatewayApp | undefined;
  const subscriber: InvalidationSubscriber = createInvalidationSubscriber({
    identityUrl: config.identityUrl,
    internalSecret: config.internalSecret,
    target: {
      evict(event) {
        cache?.evict(event);
        void app?.applyInvalidation(event).catch((err) => logger.warn({ err }, 'invalidation not applied'));
      },
      clear: () => cache?.clear(),
    },
    logger,
    metrics,
  });

  // The workers check allTools: a gateway given other tools (tests) checks on its event loop.
  const answerWorkers =
    config.answerWorkers > 0 && !options.tools
      ? new AnswerWorkers({
          module: options.answerWorkerModule ?? answerWorkerModule(),
          workers: config.answerWorkers,
          fromBytes: ANSWER_WORKER_FROM_BYTES,
          niceness: ANSWER_WORKER_NICENESS,
          maxHeapMb: ANSWER_WORKER_HEAP_MB,
          logger,
          metrics,
        })
      : undefined;

  app = createGatewayApp({
    tools: options.tools ?? allTools,
    views: catalogViews,
    // Tests that give other tools get no toolsets nor guides (theirs would name catalog tools).
    ...(options.tools ? {} : { toolsets: new Toolsets(catalogToolsets), guides: investigationGuides }),
    ...(answerWorkers ? { answerWorkers } : {}),
    cursors: new CursorSeal(config.internalSecret),
    identity: cache ?? introspection,
    // Group commit: concurrent calls' records share one write and one transaction.
    audit: createBatchingAuditSink(createHttpAuditSink(auditClient), { metrics }),
    backends: tools.backends,
    healthMonitor,
    config,
    logger,
    metrics,
    ...(tracer ? { tracer } : {}),
  });
  subscriber.start();

  return {
    app,
    metricsApp: createMetricsApp(metrics, logger),
    healthMonitor,
    subscriber,
    tracer,
    async close() {
      healthMonitor.stop();
      await subscriber.stop();
      await app.shutdown();
      for (const c of [identityClient, auditClient]) c.close();
      tools.close();
      await answerWorkers?.close();
      await tracer?.shutdown();
    },
  };
}
