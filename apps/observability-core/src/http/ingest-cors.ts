import { ForbiddenOriginError } from '@svc/errors';
import { INGEST_KEY_HEADER, type IngestKeyResolver } from '@svc/ingest-auth';
import type { Request, RequestHandler } from 'express';

// CORS for the ingest routes (docs/ingest.md, "Browsers (CORS)"): a web page may send with an
// ingest key only from an origin listed on that key. Requests without an Origin (server SDKs,
// curl, OTLP exporters) never get here. Nothing else of the core answers with CORS headers.

/** The query parameter naming the key: a preflight carries header names but no header values. */
export const SVC_KEY_PARAM = 'svc_key';

const ALLOW_HEADERS =
  'content-type, x-svc-key, x-svc-timestamp, x-svc-signature, x-svc-ingest-key, idempotency-key, x-svc-sdk-export';
// Date: the web SDK corrects a skewed browser clock after a 401. Retry-After: 429 and 503.
const EXPOSE_HEADERS = 'Date, Retry-After';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export interface IngestCorsDeps {
  ingestKeys: IngestKeyResolver;
  /** A refused browser request, for logs and metrics (the client only sees forbidden_origin). */
  onRefused?: (reason: string, details: { key_id?: string; origin: string; path: string }) => void;
}

export interface IngestCors {
  /** OPTIONS on an ingest route: 204 for an origin the named key allows, else 403. */
  preflight: RequestHandler;
  /** First step of an ingest POST: refuses a disallowed origin; an allowed one is echoed in the answer. */
  post: RequestHandler;
}

/** Every key the request names: ?svc_key=, X-Svc-Key, and the key id part of X-Svc-Ingest-Key. */
function namedKeys(req: Request): Set<string> {
  const named = new Set<string>();
  const param = req.query[SVC_KEY_PARAM];
  for (const value of Array.isArray(param) ? param : [param]) {
    if (typeof value === 'string' && value !== '') named.add(value);
  }
  const keyHeader = req.get('x-svc-key');
  if (keyHeader) named.add(keyHeader);
  const ingestKey = req.get(INGEST_KEY_HEADER)?.trim() ?? '';
  const colon = ingestKey.indexOf(':');
  if (colon > 0) named.add(ingestKey.slice(0, colon));
  return named;
}

export function createIngestCors(deps: IngestCorsDeps): IngestCors {
  /**
   * Resolves when `origin` may send with the one key the request names. The key that
   * authenticates the request must be the one checked here, so naming two different keys (svc_key
   * and a header) is refused too. Identity unreachable: the resolver's 503, never a pass.
   */
  async function check(req: Request, origin: string): Promise<void> {
    const named = namedKeys(req);
    const refuse = (reason: string, keyId?: string) => {
      deps.onRefused?.(reason, {
        ...(keyId ? { key_id: keyId.slice(0, 128) } : {}),
        origin: origin.slice(0, 300),
        path: req.path,
      });
      return new ForbiddenOriginError('This origin may not send with this ingest key.');
    };
    if (named.size === 0) throw refuse('no key named');
    if (named.size > 1) throw refuse('different keys named');
    const [keyId] = [...named] as [string];
    const key = await deps.ingestKeys.resolve(keyId);
    if (!key) throw refuse('unknown ingest key', keyId);
    if (!key.active) throw refuse('inactive ingest key', keyId);
    if (!key.allowedOrigins.includes(origin)) throw refuse('origin not allowed', keyId);
  }

  return {
    async preflight(req, res, next) {
      const origin = req.get('origin');
      if (origin === undefined) return next();
      await check(req, origin);
      res
        .status(204)
        .set({
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': 'POST',
          'Access-Control-Allow-Headers': ALLOW_HEADERS,
          'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
        })
        .vary('Origin')
        .end();
    },
    async post(req, res, next) {
      const origin = req.get('origin');
      if (origin === undefined) return next();
      await check(req, origin);
      // Set before the handler runs, so error answers (401, 400, 429, 503) carry them too.
      res
        .set({ 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSE_HEADERS })
        .vary('Origin');
      next();
    },
  };
}
