import { createHash } from 'node:crypto';
import { BackendUnavailableError } from '@svc/errors';
import type { IdentityApi } from './identity-api';

// Every tool the console shows data from (traces, the tool runner, recall files) is called through
// a gateway's REST binding, exactly as any client's call: authenticated, capability-gated, rate
// limited and audited there. The bearer is the console's own token of the session for the project
// (identity's console-sessions/tool-token): it never leaves this server, lives as long as the
// session at most, and is revoked at logout.

/** A gateway's answer to one tool call, as it came: the runner shows errors as they are. */
export type ToolAnswer =
  | { ok: true; status: number; result: unknown }
  | { ok: false; status: number; error: { error: string; message: string; details?: unknown } };

export interface ToolCaller {
  call(session: string, projectId: string, tool: string, input: unknown): Promise<ToolAnswer>;
  /** The gateway's OpenAPI document (the published tools and their input schemas). */
  catalog(): Promise<OpenApiDocument>;
  /** Forgets the session's tokens (logout). */
  forget(session: string): void;
}

export interface OpenApiDocument {
  paths: Record<
    string,
    {
      post?: {
        summary?: string;
        description?: string;
        tags?: string[];
        'x-capability'?: string;
        requestBody?: { content?: { 'application/json'?: { schema?: unknown } } };
      };
    }
  >;
  components?: { schemas?: Record<string, unknown> };
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
/** Re-mint a little before the token's end rather than fail a call on it. */
const EXPIRY_MARGIN_MS = 60_000;
/**
 * The catalog is read again after this long: every tool runner page needs it, and the gateway's
 * published set changes only when an optional service comes or goes.
 */
const CATALOG_TTL_MS = 10_000;
/** Live sessions' tokens kept at most (oldest dropped first; a dropped one is minted again). */
const MAX_CACHED = 10_000;

export function createToolCaller(options: {
  gatewayUrl: string;
  identity: IdentityApi;
  now?: () => number;
  timeoutMs?: number;
}): ToolCaller {
  const now = options.now ?? Date.now;
  const tokens = new Map<string, { token: string; expiresAt: number; session: string }>();
  let catalog: { doc: Promise<OpenApiDocument>; at: number } | undefined;

  async function fetchCatalog(): Promise<OpenApiDocument> {
    try {
      const res = await fetch(`${options.gatewayUrl}/openapi.json`, {
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      if (!res.ok) throw new Error(String(res.status));
      return (await res.json()) as OpenApiDocument;
    } catch {
      throw new BackendUnavailableError('gateway');
    }
  }

  async function tokenFor(session: string, projectId: string, fresh: boolean): Promise<string> {
    const sessionHash = sha256(session);
    const key = `${sessionHash}:${projectId}`;
    const cached = tokens.get(key);
    if (!fresh && cached && cached.expiresAt - EXPIRY_MARGIN_MS > now()) return cached.token;
    const issued = await options.identity.toolToken(session, projectId);
    tokens.delete(key);
    if (tokens.size >= MAX_CACHED) tokens.delete(tokens.keys().next().value as string);
    tokens.set(key, {
      token: issued.token,
      expiresAt: Date.parse(issued.expires_at),
      session: sessionHash,
    });
    return issued.token;
  }

  async function post(token: string, tool: string, input: unknown): Promise<ToolAnswer> {
    let res: Response;
    try {
      res = await fetch(`${options.gatewayUrl}/v1/tools/${encodeURIComponent(tool)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input ?? {}),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
    } catch {
      throw new BackendUnavailableError('gateway');
    }
    const body = (await res.json().catch(() => undefined)) as unknown;
    if (res.ok) return { ok: true, status: res.status, result: body };
    const error = (body ?? {}) as { error?: string; message?: string; details?: unknown };
    return {
      ok: false,
      status: res.status,
      error: {
        error: error.error ?? 'backend_unavailable',
        message: error.message ?? `The gateway answered ${res.status}.`,
        ...(error.details === undefined ? {} : { details: error.details }),
      },
    };
  }

  return {
    async call(session, projectId, tool, input) {
      const answer = await post(await tokenFor(session, projectId, false), tool, input);
      // The cached token was revoked or expired meanwhile: one more try with a new one.
      if (!answer.ok && answer.status === 401)
        return post(await tokenFor(session, projectId, true), tool, input);
      return answer;
    },
    catalog() {
      if (!catalog || now() - catalog.at >= CATALOG_TTL_MS) {
        const doc = fetchCatalog();
        const entry = { doc, at: now() };
        catalog = entry;
        // A failed read is not kept: the next page asks again.
        doc.catch(() => {
          if (catalog === entry) catalog = undefined;
        });
      }
      return catalog.doc;
    },
    forget(session) {
      const hash = sha256(session);
      for (const [key, value] of tokens) if (value.session === hash) tokens.delete(key);
    },
  };
}
