import type { Metrics } from '@svc/metrics';
import type { BackendToolCaller, Logger } from '@svc/tool-kit';
import type { Translator } from './llm/translator';

export interface CopilotContext {
  /** The core's internal tool endpoint: every piece of evidence comes from there. */
  core: BackendToolCaller;
  /** The optional LLM that turns free text into the grammar; absent, the grammar alone reads claims. */
  translator: Translator | undefined;
  logger: Logger;
  metrics: Metrics;
}
