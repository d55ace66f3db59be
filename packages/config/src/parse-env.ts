import { z } from 'zod';

export class ConfigError extends Error {
  constructor(
    readonly app: string,
    readonly problems: string[],
  ) {
    super(`${app}: invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses an app's environment once, at start. Each app declares its own schema in its
 * config.ts; everything below that receives typed values, never process.env.
 */
export function parseEnv<S extends z.ZodType>(
  app: string,
  schema: S,
  env: Record<string, string | undefined>,
): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const key = issue.path.join('.') || '(environment)';
    return `${key}: ${issue.message}`;
  });
  throw new ConfigError(app, problems);
}

// Reusable pieces of app schemas.

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** A URL variable that may be unset or empty (meaning: that backend is not deployed). */
export const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
  .pipe(httpUrl.optional());

export const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true');

export const internalSecret = z
  .string({ error: 'is required (shared secret for service-to-service calls)' })
  .min(16, 'must be at least 16 characters');

export const logLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info');

export function portOf(url: string | undefined, fallback: number): number {
  if (!url) return fallback;
  const u = new URL(url);
  if (u.port) return Number(u.port);
  return u.protocol === 'https:' ? 443 : 80;
}
