import type { BackendName } from '@svc/tool-kit';
import { AnswerBudget, DEFAULT_ANSWER_BUDGET, ToolExecutor, ToolRegistry } from '@svc/tool-server';
import type { GatewayDeps } from './gateway-deps';

/** The registry of the gateway's tools and the executor every binding calls through. */
export function gatewayExecutor(
  deps: GatewayDeps,
  now: () => number,
): { registry: ToolRegistry; executor: ToolExecutor } {
  const { config, metrics } = deps;
  const registry = new ToolRegistry(deps.tools);
  const executor = new ToolExecutor({
    registry,
    audit: deps.audit,
    backends: deps.backends,
    isBackendAvailable: (backend: BackendName) => deps.healthMonitor.isAvailable(backend),
    logger: deps.logger,
    metrics,
    now,
    answerBudget: new AnswerBudget(
      { ...DEFAULT_ANSWER_BUDGET, totalBytes: config.answerBudgetBytes ?? DEFAULT_ANSWER_BUDGET.totalBytes },
      metrics,
    ),
    ...(deps.answerWorkers ? { answerWorkers: deps.answerWorkers } : {}),
    ...(deps.cursors ? { cursors: deps.cursors } : {}),
  });
  return { registry, executor };
}
