import { UnauthorizedError } from '@svc/errors';
import type { Capability, Principal } from '@svc/tool-kit';
import { z } from 'zod';

export const MCP_SCOPE = 'mcp:read';

export const controlledCapability = z.enum(['vis_trace', 'vis_recall', 'vis_ai_verifier']);

/** The answer of identity's POST /internal/v1/introspect (docs/internal-api.md). */
export const introspectionResponseSchema = z.discriminatedUnion('active', [
  z.strictObject({ active: z.literal(false) }),
  z.strictObject({
    active: z.literal(true),
    token_id: z.string().min(1),
    user_id: z.string().min(1).nullable(),
    org_id: z.string().min(1).nullable(),
    project_id: z.string().min(1).nullable(),
    scopes: z.array(z.string()),
    expires_at: z.iso.datetime({ offset: true }),
    capabilities: z.array(controlledCapability),
    /** The web console's own token of a session: its calls are audited with transport `console`. */
    console: z.literal(true).optional(),
    /**
     * An OAuth access token's resource (RFC 8707): the one gateway URL it was issued for. A
     * gateway refuses it unless it is its own; pasted tokens have none (any gateway of the stack).
     */
    audience: z.url().optional(),
  }),
]);
export type IntrospectionResponse = z.infer<typeof introspectionResponseSchema>;

/**
 * Turns identity's answer into the caller of a tool call, or refuses: inactive, expired by
 * `now` (identity already checks; this guards against clock skew and stale answers), no
 * `mcp:read` scope (general API tokens), or no project.
 */
export function principalFromIntrospection(answer: IntrospectionResponse, now: number | Date): Principal {
  if (!answer.active) throw new UnauthorizedError('inactive');
  const nowMs = typeof now === 'number' ? now : now.getTime();
  if (Date.parse(answer.expires_at) <= nowMs) throw new UnauthorizedError('expired');
  if (!answer.scopes.includes(MCP_SCOPE)) throw new UnauthorizedError('missing_scope');
  if (answer.project_id === null) throw new UnauthorizedError('no_project');
  return {
    tokenId: answer.token_id,
    userId: answer.user_id,
    orgId: answer.org_id,
    projectId: answer.project_id,
    capabilities: new Set<Capability>(answer.capabilities),
  };
}
