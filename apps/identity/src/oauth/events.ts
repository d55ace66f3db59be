import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { IdentityContext } from '../context';
import { revokeEverywhere } from '../invalidation/revoke-everywhere';
import { findOAuthToken } from './oauth-tokens';

// oidc-provider says so in the error's detail (for logs); the client sees a plain invalid_grant.
const REFRESH_REUSE = 'refresh token already used';

const clientOf = (oidc: KoaContextWithOIDC) => oidc.oidc?.client?.clientId;
const errorOf = (err: unknown) => {
  const e = err as { error?: string; error_description?: string; error_detail?: string };
  return {
    error: e.error ?? 'server_error',
    error_description: e.error_description,
    error_detail: e.error_detail,
  };
};

/**
 * Every authorization, token issue, refresh, refused request, reuse detection and revocation of the
 * authorization server as a security event in identity's log (never a token value). A grant that
 * oidc-provider revokes (a reused refresh token, a client's RFC 7009 revocation) revokes its tokens
 * row too, everywhere: the /mcp page shows it revoked and every gateway drops it from its cache.
 */
export function logProviderEvents(ctx: IdentityContext, provider: Provider): void {
  const log = ctx.logger;
  provider.on('authorization.success', (oidc: KoaContextWithOIDC) => {
    log.info({ event: 'oauth_authorized', client_id: clientOf(oidc) }, 'authorization code issued');
  });
  provider.on('authorization.error', (oidc: KoaContextWithOIDC, err: unknown) => {
    log.warn(
      { event: 'oauth_authorization_refused', client_id: clientOf(oidc), ...errorOf(err) },
      'authorization refused',
    );
  });
  provider.on('grant.success', (oidc: KoaContextWithOIDC) => {
    log.info(
      {
        event:
          oidc.oidc.params?.grant_type === 'refresh_token' ? 'oauth_token_refreshed' : 'oauth_token_issued',
        client_id: clientOf(oidc),
        grant_id: oidc.oidc.entities.Grant?.jti,
      },
      'OAuth access token issued',
    );
  });
  provider.on('grant.error', (oidc: KoaContextWithOIDC, err: unknown) => {
    const { error, error_description, error_detail } = errorOf(err);
    const reuse = error_detail === REFRESH_REUSE;
    log.warn(
      {
        event: reuse ? 'oauth_refresh_token_reused' : 'oauth_token_refused',
        client_id: clientOf(oidc),
        grant_type: oidc.oidc?.params?.grant_type,
        error,
        error_description,
        error_detail,
      },
      reuse ? 'refresh token reused: its grant is revoked' : 'token request refused',
    );
  });
  provider.on('grant.revoked', (_oidc: KoaContextWithOIDC, grantId: string) => {
    void revokeGrantRow(ctx, grantId).catch((err) =>
      log.error(
        { event: 'oauth_grant_revoke_failed', grant_id: grantId, err },
        'revoking the grant row failed',
      ),
    );
  });
  provider.on(
    'registration_create.success',
    (_oidc: KoaContextWithOIDC, client: { clientId: string; clientName?: string }) => {
      log.info(
        { event: 'oauth_client_registered', client_id: client.clientId, client_name: client.clientName },
        'OAuth client registered',
      );
    },
  );
  provider.on('server_error', (_oidc: KoaContextWithOIDC, err: unknown) => {
    log.error({ event: 'oauth_server_error', err }, 'authorization server error');
  });
}

async function revokeGrantRow(ctx: IdentityContext, grantId: string): Promise<void> {
  const row = await findOAuthToken(ctx.db, grantId);
  if (!row || row.revoked_at) return;
  await revokeEverywhere(ctx, row.token_id);
  ctx.logger.warn(
    { event: 'oauth_grant_revoked', grant_id: grantId, token_id: row.token_id, project_id: row.project_id },
    'OAuth grant revoked',
  );
}
