import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { errors } from './oidc-provider';
import { MAX_URI_CHARS } from './redirect-policy';

/**
 * The longest value of any authorization parameter (state, redirect_uri, client_id, scope, ...).
 * An interaction stores the request's parameters for 10 minutes, so their size times anonymous
 * starts is memory held. Clients send a state of 20-100 characters.
 */
export const MAX_PARAM_CHARS = MAX_URI_CHARS;

function checkBounds(ctx: KoaContextWithOIDC): void {
  const params = ctx.oidc.params as Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(params ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    if (values.length > 4 || values.some((v) => typeof v === 'string' && v.length > MAX_PARAM_CHARS)) {
      throw new errors.InvalidRequest(`${name} must be at most ${MAX_PARAM_CHARS} characters`);
    }
  }
}

/**
 * Checks of /oauth/auth and the pushed authorization request endpoint that run after the client
 * and its redirect URI were recognized and before anything is stored (oidc-provider runs these
 * validators whether or not the parameter is present): every parameter within MAX_PARAM_CHARS, and
 * the one resource this server issues tokens for (RFC 8707, MCP: no resource means no default).
 */
export function authorizationParamChecks(resource: string): NonNullable<Configuration['extraParams']> {
  return {
    // Under `state` because a validator belongs to a parameter; it looks at all of them.
    state: (ctx) => checkBounds(ctx),
    resource: (_ctx, value) => {
      if (value !== resource) throw new errors.InvalidTarget(`resource must be ${resource}`);
    },
  };
}
