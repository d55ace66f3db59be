import { type IntrospectionResponse, introspectionResponseSchema } from '@svc/auth';
import type { BackendClient } from '@svc/backend-client';
import { BackendUnavailableError } from '@svc/errors';
import { type Capability, CONTROLLED_CAPABILITIES, type Logger } from '@svc/tool-kit';
import { z } from 'zod';

export interface IntrospectOptions {
  requestId: string;
  signal?: AbortSignal;
}

/** Token introspection (identity's POST /internal/v1/introspect). */
export interface IdentityClient {
  introspect(token: string, options: IntrospectOptions): Promise<IntrospectionResponse>;
}

/**
 * Introspection over its own backend client (own breaker). Fails closed: any failure, including
 * an answer outside the documented shape, is 503 `backend_unavailable`, never an allow. No cache
 * here: a revoke must take effect on the very next request, which only the gateway's token cache,
 * under its lease on identity's invalidations, keeps while caching (docs/architecture.md, "Token cache").
 */
export function createIdentityClient(client: BackendClient, logger: Logger): IdentityClient {
  return {
    async introspect(token, options) {
      let raw: unknown;
      try {
        raw = await client.postJson('/internal/v1/introspect', { token }, options);
      } catch (err) {
        const retryAfter = err instanceof BackendUnavailableError ? err.retryAfterSeconds : 5;
        throw new BackendUnavailableError('identity', retryAfter, { cause: err });
      }
      const parsed = introspectionResponseSchema.safeParse(raw);
      if (!parsed.success) {
        logger.error(
          { issues: parsed.error.issues.slice(0, 5) },
          'identity introspection answer out of contract',
        );
        throw new BackendUnavailableError('identity');
      }
      return parsed.data;
    },
  };
}

const capabilitiesAnswer = z.object({
  org_id: z.string(),
  capabilities: z.array(z.string()),
});

const CONTROLLED = new Set<string>(CONTROLLED_CAPABILITIES);

/**
 * The org's enabled controlled capabilities (identity's GET /internal/v1/orgs/{org_id}/capabilities),
 * for stdio mode where no token carries them. Any failure is an error: callers fail closed.
 */
export async function fetchOrgCapabilities(
  client: BackendClient,
  orgId: string,
  options: IntrospectOptions,
): Promise<Set<Capability>> {
  const answer = capabilitiesAnswer.parse(
    await client.getJson(`/internal/v1/orgs/${encodeURIComponent(orgId)}/capabilities`, options),
  );
  return new Set(answer.capabilities.filter((c) => CONTROLLED.has(c)) as Capability[]);
}
