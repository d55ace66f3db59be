import { httpUrl, internalSecret, logLevel, optionalUrl, parseEnv, portOf } from '@svc/config';
import { type SelfTraceConfig, selfTraceConfig, selfTraceEnv } from '@svc/self-trace';
import { z } from 'zod';

const emptyAsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const copilotEnvSchema = z
  .object({
    SVC_COPILOT_PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65535).optional()),
    SVC_COPILOT_ENDPOINT: optionalUrl,
    SVC_COPILOT_HOST: z.string().min(1).default('0.0.0.0'),
    SVC_INTERNAL_SECRET: internalSecret,
    // The core whose tools the checker calls for the evidence.
    SVC_OBSERVABILITY_ENDPOINT: httpUrl.default('http://localhost:8080'),
    // Optional: an OpenAI-compatible chat completions API that turns free text into the grammar.
    SVC_COPILOT_LLM_URL: optionalUrl,
    SVC_COPILOT_LLM_API_KEY: z.preprocess(emptyAsUnset, z.string().optional()),
    SVC_COPILOT_LLM_MODEL: z.preprocess(emptyAsUnset, z.string().min(1).default('gpt-4o-mini')),
    SVC_COPILOT_LLM_TIMEOUT_MS: z.preprocess(
      emptyAsUnset,
      z.coerce.number().int().min(100).max(120_000).default(10_000),
    ),
    SVC_LOG_LEVEL: logLevel,
    // The stack traced by itself: spans go to the core it already calls (SVC_OBSERVABILITY_ENDPOINT).
    ...selfTraceEnv,
  })
  .superRefine((e, ctx) => {
    if (e.SVC_COPILOT_LLM_API_KEY && !e.SVC_COPILOT_LLM_URL)
      ctx.addIssue({
        code: 'custom',
        path: ['SVC_COPILOT_LLM_URL'],
        message: 'is required when SVC_COPILOT_LLM_API_KEY is set (e.g. https://api.openai.com/v1)',
      });
  });

export interface LlmConfig {
  /** Base URL of an OpenAI-compatible API; `/chat/completions` is appended. */
  url: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
}

export interface CopilotConfig {
  port: number;
  host: string;
  internalSecret: string;
  coreUrl: string;
  /** Unset: claims are read by the grammar alone. */
  llm: LlmConfig | undefined;
  logLevel: z.output<typeof logLevel>;
  /** SVC_SELF_TRACE_PROJECT: where copilot's own spans go; undefined: not traced. */
  selfTrace: SelfTraceConfig | undefined;
}

export function loadCopilotConfig(env: Record<string, string | undefined>): CopilotConfig {
  const e = parseEnv('copilot', copilotEnvSchema, env);
  return {
    port: e.SVC_COPILOT_PORT ?? portOf(e.SVC_COPILOT_ENDPOINT, 8093),
    host: e.SVC_COPILOT_HOST,
    internalSecret: e.SVC_INTERNAL_SECRET,
    coreUrl: e.SVC_OBSERVABILITY_ENDPOINT,
    llm: e.SVC_COPILOT_LLM_URL
      ? {
          url: e.SVC_COPILOT_LLM_URL,
          apiKey: e.SVC_COPILOT_LLM_API_KEY,
          model: e.SVC_COPILOT_LLM_MODEL,
          timeoutMs: e.SVC_COPILOT_LLM_TIMEOUT_MS,
        }
      : undefined,
    logLevel: e.SVC_LOG_LEVEL,
    selfTrace: selfTraceConfig('copilot', e, {
      url: e.SVC_OBSERVABILITY_ENDPOINT,
      variable: 'SVC_OBSERVABILITY_ENDPOINT',
    }),
  };
}
