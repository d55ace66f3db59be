import { createBackendClient, DEFAULT_TIMEOUT_MS } from '@svc/backend-client';
import type { Metrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import type { Express } from 'express';
import { createCopilotApp } from './app';
import type { CopilotConfig } from './config';
import { createChatTranslator } from './llm/translator';

export interface WiredCopilot {
  app: Express;
  close(): Promise<void>;
}

/** The core client (breaker, keep-alive, internal secret) and the optional LLM, from the config. */
export function wireCopilot(config: CopilotConfig, deps: { logger: Logger; metrics: Metrics }): WiredCopilot {
  const core = createBackendClient({
    name: 'core',
    baseUrl: config.coreUrl,
    internalSecret: config.internalSecret,
    timeoutMs: DEFAULT_TIMEOUT_MS.core,
    metrics: deps.metrics,
    logger: deps.logger,
  });
  const app = createCopilotApp({
    core: core.asToolCaller(),
    translator: config.llm ? createChatTranslator(config.llm, deps.logger) : undefined,
    logger: deps.logger,
    metrics: deps.metrics,
    internalSecret: config.internalSecret,
  });
  return { app, close: async () => core.close() };
}
