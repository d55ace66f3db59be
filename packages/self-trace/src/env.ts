import { ConfigError } from '@svc/config';
import { z } from 'zod';

const emptyAsUnset = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** As the core's internal routes take it in their path (`INTERNAL_PROJECT_ID` of @svc/tool-server). */
const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * The two variables every service's config.ts adds to its schema (`...selfTraceEnv`): the project
 * the stack's own spans go to (unset: no tracing at all), and its head-sampling rate.
 */
export const selfTraceEnv = {
  SVC_SELF_TRACE_PROJECT: z.preprocess(
    emptyAsUnset,
    z
      .string()
      .regex(PROJECT_ID, 'must be a project id (letters, digits and . _ : -, as `pnpm svc` prints it)')
      .optional(),
  ),
  // 0 or unset keeps every trace (the SDK's convention); a trace is kept or dropped by its id alone,
  // so every service of the stack keeps the same ones.
  SVC_SELF_TRACE_SAMPLE_RATE: z.preprocess(
    emptyAsUnset,
    z.coerce
      .number({ error: 'must be a number in [0, 1] (0 or unset: every trace)' })
      .min(0, 'must be in [0, 1] (0 or unset: every trace)')
      .max(1, 'must be in [0, 1] (0 or unset: every trace)')
      .optional(),
  ),
};

export interface SelfTraceConfig {
  /** The core project the spans are written into. */
  project: string;
  /** The core's base URL, reached with the internal secret. */
  coreUrl: string;
  /** Head sampling in [0, 1]; 0 keeps every trace. */
  sampleRate: number;
}

/**
 * The service's self-tracing from its parsed environment: undefined when SVC_SELF_TRACE_PROJECT
 * is unset. A project without a core to send to, or a rate without a project (a typo in the
 * project's name, most likely), fails at start with the variable to set.
 */
export function selfTraceConfig(
  app: string,
  env: { SVC_SELF_TRACE_PROJECT?: string | undefined; SVC_SELF_TRACE_SAMPLE_RATE?: number | undefined },
  core: { url: string | undefined; variable: string },
): SelfTraceConfig | undefined {
  const project = env.SVC_SELF_TRACE_PROJECT;
  if (!project) {
    if (env.SVC_SELF_TRACE_SAMPLE_RATE !== undefined)
      throw new ConfigError(app, [
        'SVC_SELF_TRACE_SAMPLE_RATE: is set but SVC_SELF_TRACE_PROJECT is not (the project the spans go to)',
      ]);
    return undefined;
  }
  if (!core.url)
    throw new ConfigError(app, [
      `${core.variable}: is required when SVC_SELF_TRACE_PROJECT is set (the core the spans are sent to, e.g. http://localhost:8080)`,
    ]);
  return { project, coreUrl: core.url.replace(/\/+$/, ''), sampleRate: env.SVC_SELF_TRACE_SAMPLE_RATE ?? 0 };
}
