import { generateKeyPairSync, hkdfSync } from 'node:crypto';
import { MCP_SCOPE } from '@svc/auth';
import type OidcProvider from 'oidc-provider';
import type {
  CanBePromise,
  Configuration,
  KoaContextWithOIDC,
  TokenEndpointGrantContext,
  UnknownObject,
} from 'oidc-provider';
import type { IdentityContext } from '../context';
import { getUser } from '../store/users';
import { pgAdapterClass } from './adapter';
import { authorizationParamChecks } from './authorization-params';
import { type BrowserBinding, browserBinding } from './browser-binding';
import { clientDocumentFetch } from './client-document-fetch';
import { advertiseMcpScopeOnly } from './discovery';
import { sendErrorPage } from './error-page';
import { logProviderEvents } from './events';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  GRANT_TTL_SECONDS,
  INTERACTION_TTL_SECONDS,
  type OAuthOptions,
  REFRESH_TOKEN_TTL_SECONDS,
} from './oauth-options';
import { errors, Provider } from './oidc-provider';
import { pinToIssuer } from './public-origin';
import { clientMetadataRules, trustedErrorRedirects } from './redirect-policy';
import { allowBrowserRegistration } from './registration-cors';
import { authorizationServerThrottle } from './throttle';

/** Client ID Metadata Documents may be cached this long (seconds), whatever they say. */
const CLIENT_DOCUMENT_CACHE = { min: 60, max: 24 * 60 * 60 };
/** A client's metadata document is a few hundred bytes; anything past this is refused. */
const CLIENT_DOCUMENT_MAX_BYTES = 5 * 1024;

/** The authorization server and what the consent routes need of it. */
export interface AuthorizationServer {
  provider: OidcProvider;
  options: OAuthOptions;
  /** Which browser may see, approve or deny a sign-in (browser-binding.ts). */
  binding: BrowserBinding;
}

/**
 * The OAuth 2.1 authorization server for MCP clients: oidc-provider (a certified implementation)
 * configured down to what the MCP authorization spec asks: authorization code with PKCE S256 only,
 * `iss` in the response (RFC 9207), one resource (RFC 8707: the gateway's MCP URL, scope mcp:read),
 * clients by Client ID Metadata Document or Dynamic Client Registration (RFC 7591), rotating refresh
 * tokens whose reuse revokes the grant. The people-facing steps (sign-in, step-up, project, consent)
 * are the console's page, in the browser that began the sign-in only (browser-binding.ts); identity
 * finishes the interaction (consent.ts). Every URL it writes is the issuer's (public-origin.ts),
 * an error goes back to a client only when its redirect URI is trusted (redirect-policy.ts), what
 * clients name is fetched from public addresses only (client-document-fetch.ts), and its anonymous
 * endpoints are throttled per client address (throttle.ts).
 */
export function createAuthorizationServer(
  ctx: IdentityContext,
  options: OAuthOptions,
  internalSecret: string,
): AuthorizationServer {
  const accessTokenTtl = options.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS;
  const resourceServer = {
    scope: MCP_SCOPE,
    audience: options.resource,
    accessTokenTTL: accessTokenTtl,
    accessTokenFormat: 'opaque' as const,
  };
  // The signing key only signs what oidc-provider insists on having keys for (no ID tokens are
  // asked for: there is no openid scope); a new one at each start is enough.
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const cookieKey = Buffer.from(
    hkdfSync('sha256', internalSecret, 'svc-identity', 'oauth cookies', 32),
  ).toString('base64url');

  const throttle = authorizationServerThrottle(ctx);
  // Set once the provider exists; the interaction hook below runs only on requests.
  let binding: BrowserBinding | undefined;

  const configuration: Configuration = {
    adapter: pgAdapterClass(ctx.db, throttle.modelDestroyed),
    clients: [],
    jwks: { keys: [{ ...signingKey, use: 'sig', alg: 'ES256' } as never] },
    cookies: { keys: [cookieKey] },
    scopes: [MCP_SCOPE],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    pkce: { required: () => true },
    async findAccount(_oidc, sub) {
      const user = await getUser(ctx.db, sub);
      return user ? { accountId: user.user_id, claims: () => ({ sub: user.user_id }) } : undefined;
    },
    // Every authorization goes through the consent page (step-up, one project): a grant is
    // reused only in the very interaction that made it, never from an earlier sign-in.
    async loadExistingGrant(oidc: KoaContextWithOIDC) {
      const grantId = oidc.oidc.result?.consent?.grantId;
      return grantId ? oidc.oidc.provider.Grant.find(grantId) : undefined;
    },
    // Bounds and the resource, checked before an interaction or a pushed request is stored.
    extraParams: authorizationParamChecks(options.resource),
    extraClientMetadata: clientMetadataRules,
    interactions: {
      // Runs once the interaction is stored: it holds its start's place in the throttle, and
      // belongs to this browser.
      async url(koa, interaction) {
        throttle.interactionStarted(koa, interaction.uid);
        await binding!.started(koa, interaction.uid, INTERACTION_TTL_SECONDS);
        return `${options.consoleUrl}/oauth/consent/${interaction.uid}`;
      },
    },
    issueRefreshToken: async (_oidc, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      Grant: GRANT_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Session: INTERACTION_TTL_SECONDS,
    },
    // Browser-based public clients (the Inspector) call the token endpoint from their redirect's origin.
    clientBasedCORS(_oidc, origin, client) {
      if (origin === 'null' || client.clientAuthMethod !== 'none') return false;
      return client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) ?? false;
    },
    fetch: clientDocumentFetch({
      ...(options.trustedClientDocumentCa ? { trustedCa: options.trustedClientDocumentCa } : {}),
      ...(options.clientDocumentsFromLoopback ? { allowLoopback: true } : {}),
    }),
    // A request that cannot go back to its client (unknown client, unregistered redirect URI).
    async renderError(koa, out) {
      sendErrorPage(koa, { error: String(out.error), error_description: out.error_description });
    },
    fetchResponseBodyLimits: { 'client_id metadata document': CLIENT_DOCUMENT_MAX_BYTES },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // A client must name the resource when it asks to be authorized (RFC 8707, MCP spec):
        // no resource means no default one (checked when the interaction starts).
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo(_oidc, indicator) {
          if (indicator !== options.resource) throw new errors.InvalidTarget();
          return resourceServer;
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: CLIENT_DOCUMENT_CACHE,
        allowFetch: (koa: KoaContextWithOIDC | undefined) => throttle.allowDocumentFetch(koa),
      },
    } as Configuration['features'],
  };
  // oidc-provider registers its grant types and response modes as it is constructed, through these.
  class GuardedProvider extends Provider {
    override registerGrantType<Params extends object = UnknownObject>(
      name: string,
      handler: (ctx: TokenEndpointGrantContext<Params>) => CanBePromise<void>,
      params?: string | readonly string[] | ReadonlySet<string>,
      duplicates?: string | readonly string[] | ReadonlySet<string>,
    ): void {
      super.registerGrantType<Params>(
        name,
        throttle.grant(name, handler as never) as never,
        params,
        duplicates,
      );
    }
    override registerResponseMode(...[name, handler]: Parameters<OidcProvider['registerResponseMode']>) {
      super.registerResponseMode(name, trustedErrorRedirects(handler as never) as never);
    }
  }
  const provider = new GuardedProvider(options.issuer, configuration);
  // Middleware order: the issuer's origin first, then the throttle, before anything answers.
  pinToIssuer(provider, options.issuer);
  throttle.install(provider);
  logProviderEvents(ctx, provider);
  allowBrowserRegistration(provider);
  advertiseMcpScopeOnly(provider);
  binding = browserBinding(provider, ctx.db, options);
  return { provider, options, binding };
}
