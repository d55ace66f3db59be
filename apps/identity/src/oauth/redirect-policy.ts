import type { ClientMetadata, KoaContextWithOIDC } from 'oidc-provider';
import { sendErrorPage } from './error-page';
import { errors } from './oidc-provider';

// Where the authorization server may send a browser, and what a client may register (RFC 9700
// §4.1, §4.11.2; RFC 8252 §7.3, §8.3).

/** Redirect URIs one client may register: MCP clients register one or two. */
export const MAX_REDIRECT_URIS = 10;
/** The longest redirect URI (and authorization parameter): real callbacks are under 100 characters. */
export const MAX_URI_CHARS = 1024;
/** The longest client_name: it is shown on the consent page and the /mcp page. */
export const MAX_CLIENT_NAME_CHARS = 100;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** An http URI on this machine (RFC 8252 §7.3): where a native client listens for its answer. */
export function isLoopbackRedirect(uri: string): boolean {
  const url = URL.parse(uri);
  return url !== null && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

const invalid = (description: string) => new errors.InvalidClientMetadata(description);

/**
 * What a client may name, checked on every client however it comes (registration, a Client ID
 * Metadata Document, one loaded from the store): oidc-provider's own checks run after these.
 * Redirect URIs: 1 to MAX_REDIRECT_URIS, each at most MAX_URI_CHARS, without user information
 * (`https://claude.ai@evil.example` reads as another host), and http only on a loopback host (any
 * application type: MCP clients register loopback callbacks as the default web type); https
 * anywhere, shown as a web site on the consent page; other schemes only for native clients (their
 * private-use URI schemes, which oidc-provider checks). Names at most MAX_CLIENT_NAME_CHARS.
 */
export const clientMetadataRules = {
  properties: ['redirect_uris', 'client_name'],
  validator(_ctx: KoaContextWithOIDC | undefined, key: string, value: unknown, metadata: ClientMetadata) {
    if (key === 'client_name') {
      if (value !== undefined && (typeof value !== 'string' || value.length > MAX_CLIENT_NAME_CHARS)) {
        throw invalid(`client_name must be a string of at most ${MAX_CLIENT_NAME_CHARS} characters`);
      }
      return;
    }
    if (key !== 'redirect_uris' || value === undefined) return;
    if (!Array.isArray(value) || value.length > MAX_REDIRECT_URIS) {
      throw invalid(`redirect_uris must be a list of at most ${MAX_REDIRECT_URIS} URIs`);
    }
    for (const uri of value) checkRedirectUri(uri, metadata.application_type);
  },
};

function checkRedirectUri(uri: unknown, applicationType: unknown): void {
  if (typeof uri !== 'string' || uri.length > MAX_URI_CHARS) {
    throw invalid(`redirect_uris must hold URIs of at most ${MAX_URI_CHARS} characters`);
  }
  const url = URL.parse(uri);
  if (!url) throw invalid('redirect_uris must only contain valid URIs');
  if (url.username || url.password) throw invalid('redirect_uris must not contain user information');
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:') {
    if (!isLoopbackRedirect(uri)) {
      throw invalid('redirect_uris must use https, or http on a loopback host (127.0.0.1, [::1], localhost)');
    }
    return;
  }
  if (applicationType !== 'native') {
    throw invalid('redirect_uris of a web client must use https, or http on a loopback host');
  }
}

type ResponseModeHandler = (
  ctx: KoaContextWithOIDC,
  redirectUri: string,
  payload: Record<string, unknown>,
) => unknown;

/**
 * RFC 9700 §4.11.2: the authorization server redirects an error automatically only to a redirect
 * URI it trusts. Anyone may register a client with a web redirect URI of their choosing, so before
 * the person has answered the consent page an error goes back to the client only on a loopback
 * URI (it stays on the person's own machine); any other is shown on our error page instead, and
 * our URL cannot bounce a browser to an arbitrary site. Once the person answered (the resume
 * after the consent page), the answer goes to the client they saw and chose.
 */
export function trustedErrorRedirects(handler: ResponseModeHandler): ResponseModeHandler {
  return (ctx, redirectUri, payload) => {
    const answered = ctx.oidc?.route === 'resume';
    if (payload.error === undefined || answered || isLoopbackRedirect(redirectUri)) {
      return handler(ctx, redirectUri, payload);
    }
    return sendErrorPage(ctx, {
      error: String(payload.error),
      error_description: payload.error_description as string | undefined,
    });
  };
}
