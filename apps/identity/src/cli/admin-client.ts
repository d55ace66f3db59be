import { type CliConfig, CliError } from './cli-config';

/** The identity admin API over HTTP, authenticated with the internal secret. */
export function createAdminClient(config: CliConfig) {
  return async function call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(config.url + path, {
        method,
        headers: {
          'X-Internal-Secret': config.secret,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch {
      throw new CliError(`cannot reach identity at ${config.url} (is it running?)`, 1, 'unreachable');
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const err = parsed as { error?: string; message?: string; details?: unknown } | undefined;
      if (res.status === 401) {
        throw new CliError(
          'identity refused the internal secret (SVC_INTERNAL_SECRET or the secret file)',
          1,
          'unauthorized',
        );
      }
      const details = err?.details ? ` ${JSON.stringify(err.details)}` : '';
      throw new CliError(`${err?.message ?? `HTTP ${res.status}`}${details}`, 1, err?.error ?? 'failed');
    }
    return parsed as T;
  };
}

export type AdminCall = ReturnType<typeof createAdminClient>;
