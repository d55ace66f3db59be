import { createBackendClient, DEFAULT_TIMEOUT_MS } from '@svc/backend-client';
import type { Metrics } from '@svc/metrics';
import { createSelfTracer, type Tracer } from '@svc/self-trace';
import type { Logger } from '@svc/tool-kit';
import type { Express } from 'express';
import { createCopilotApp } from './app';
import type { CopilotConfig } from './config';
import { createChatTranslator } from './llm/translator';

export interface WiredCopilot {
  app: Express;
  /** Self-tracing's tracer, when SVC_SELF_TRACE_PROJECT is set (shut down by close()). */
  tracer: Tracer | undefined;
  close(): Promise<void>;
}

/** The core client (breaker, keep-alive, internal secret) and the optional LLM, from the config. */
export function wireCopilot(config: CopilotConfig, deps: { logger: Logger; metrics: Metrics }): WiredCopilot {
  const tracer = createSelfTracer({
    service: 'copilot',
    internalSecret: config.internalSecret,
    logger: deps.logger,
    ...config.selfTrace,
  });
  const core = createBackendClient({
    name: 'core',
    baseUrl: config.coreUrl,
    internalSecret: config.internalSecret,
    timeoutMs: DEFAULT_TIMEOUT_MS.core,
    metrics: deps.metrics,
    logger: deps.logger,
    ...(tracer ? { tracer } : {}),
  });
  const app = createCopilotApp({
    core: core.asToolCaller(),
    translator: config.llm ? createChatTranslator(config.llm, deps.logger) : undefined,
    logger: deps.logger,
    metrics: deps.metrics,
    internalSecret: config.internalSecret,
    ...(tracer ? { tracer } : {}),
  });
  return {
    app,
    tracer,
    async close() {
      core.close();
      await tracer?.shutdown();
    },
  };
}
