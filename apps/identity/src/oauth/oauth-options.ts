/** Where the authorization server lives and what it issues tokens for (identity's config.ts). */
export interface OAuthOptions {
  /** The issuer: identity's public address plus /oauth, e.g. http://localhost:8081/oauth. */
  issuer: string;
  /** The gateway's MCP resource URL; the only resource a token is issued for, e.g. http://localhost:8092/mcp. */
  resource: string;
  /** The console's public base URL: the consent page is `<console>/oauth/consent/<uid>`. */
  consoleUrl: string;
  /** PEM certificates trusted for Client ID Metadata Documents besides the system's (tests). */
  trustedClientDocumentCa?: string;
  /**
   * Tests only, off by default, not settable from the environment: documents may come from loopback
   * addresses (a test's https server). Private and other non-public addresses are refused anyway.
   */
  clientDocumentsFromLoopback?: boolean;
  /** How long an access token lives (seconds); default ACCESS_TOKEN_TTL_SECONDS. */
  accessTokenTtlSeconds?: number;
}

export const OAUTH_MOUNT = '/oauth';
/** Access tokens live 10 minutes: a client refreshes, and a revoked grant ends in one call anyway. */
export const ACCESS_TOKEN_TTL_SECONDS = 10 * 60;
/** The longest SVC_OAUTH_ACCESS_TOKEN_TTL_SECONDS may ask for: an access token stays short-lived. */
export const MAX_ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
/** How long one refresh token may wait to be used; each use rotates it. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
/** A grant (the /mcp page's row) lasts as long as a pasted token by default. */
export const GRANT_TTL_SECONDS = 90 * 24 * 60 * 60;
/** The sign-in, step-up and consent in the console must end within 10 minutes. */
export const INTERACTION_TTL_SECONDS = 10 * 60;
