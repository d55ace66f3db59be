import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import type { AssistantConfig } from '../config';

// The model, through the AI SDK's provider packages (no wire code of ours): an OpenAI-compatible
// chat API (OpenAI, Ollama, llama.cpp's server, vLLM) or Anthropic's Messages API.

/** A model for one turn, and whether its provider failed to start answering in time. */
export interface TurnModel {
  model: LanguageModel;
  timedOut(): boolean;
}

/**
 * `fetch` with a deadline on the answer's start (its headers): a streamed answer may then take as
 * long as it streams, but a provider that never answers is given up on with a clear message.
 */
function fetchWithDeadline(timeoutMs: number, onTimeout: () => void): typeof fetch {
  return async (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    try {
      return await fetch(input, { ...init, signal });
    } catch (err) {
      if (deadline.aborted && !init?.signal?.aborted) onTimeout();
      throw err;
    }
  };
}

export function turnModel(config: AssistantConfig): TurnModel {
  let timedOut = false;
  const fetch = fetchWithDeadline(config.timeoutMs, () => {
    timedOut = true;
  });
  const model =
    config.provider === 'anthropic'
      ? createAnthropic({ baseURL: config.baseUrl, apiKey: config.apiKey, fetch })(config.model)
      : createOpenAICompatible({
          name: 'assistant',
          baseURL: config.baseUrl,
          ...(config.apiKey ? { apiKey: config.apiKey } : {}),
          fetch,
        }).chatModel(config.model);
  return { model, timedOut: () => timedOut };
}
