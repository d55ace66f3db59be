import { BackendUnavailableError } from '@svc/errors';
import { z } from 'zod';

export interface IngestKey {
  projectId: string;
  secret: string;
  active: boolean;
  /** Exact web origins whose pages may send with this key (the core's CORS); empty: none. */
  allowedOrigins: readonly string[];
}

/** Where the core learns which project an ingest key writes to, its secret and its browser origins. */
export interface IngestKeyResolver {
  /** null: no such key. Throws BackendUnavailableError when it cannot tell. */
  resolve(keyId: string): Promise<IngestKey | null>;
}

const identityAnswer = z.object({
  key_id: z.string(),
  project_id: z.string().min(1),
  secret: z.string().min(1),
  active: z.boolean(),
  // Absent from an identity that predates browser origins: no browser may send.
  allowed_origins: z.array(z.string()).optional(),
});

export interface HttpIngestKeyResolverOptions {
  identityUrl: string;
  internalSecret: string;
  /** How long an answer (including "unknown") is reused; default 30 s. */
  cacheMs?: number;
  timeoutMs?: number;
  now?: () => number;
  fetch?: typeof fetch;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Asks identity (`GET /internal/v1/ingest-keys/{key_id}`) and caches answers briefly, so a busy
 * ingest path does not call identity per request; a revoked key stops working within `cacheMs`.
 * Identity down or answering garbage: BackendUnavailableError (503), never a guess.
 */
export function createHttpIngestKeyResolver(options: HttpIngestKeyResolverOptions): IngestKeyResolver {
  const cacheMs = options.cacheMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 3_000;
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;
  const base = options.identityUrl.replace(/\/+$/, '');
  const cache = new Map<string, { at: number; key: IngestKey | null }>();

  async function ask(keyId: string): Promise<IngestKey | null> {
    let response: Response;
    try {
      response = await doFetch(`${base}/internal/v1/ingest-keys/${encodeURIComponent(keyId)}`, {
        headers: { 'X-Internal-Secret': options.internalSecret, Accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new BackendUnavailableError('identity', 5, { cause: err });
    }
    if (response.status === 404) return null;
    if (!response.ok)
      throw new BackendUnavailableError('identity', 5, { cause: new Error(`HTTP ${response.status}`) });
    const parsed = identityAnswer.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success || parsed.data.key_id !== keyId) {
      throw new BackendUnavailableError('identity', 5, { cause: new Error('unexpected ingest key answer') });
    }
    return {
      projectId: parsed.data.project_id,
      secret: parsed.data.secret,
      active: parsed.data.active,
      allowedOrigins: parsed.data.allowed_origins ?? [],
    };
  }

  return {
    async resolve(keyId) {
      if (!KEY_ID.test(keyId)) return null;
      const hit = cache.get(keyId);
      if (hit && now() - hit.at < cacheMs) return hit.key;
      const key = await ask(keyId);
      if (cache.size > 10_000) cache.clear();
      cache.set(keyId, { at: now(), key });
      return key;
    },
  };
}
