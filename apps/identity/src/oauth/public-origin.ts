import type Provider from 'oidc-provider';

/**
 * Every URL the authorization server writes (its metadata's endpoints, an interaction's resume
 * address, cookie paths, the token endpoint it accepts as an audience) is built by oidc-provider
 * from the request's Host and protocol, which are whatever the client sent. Each request is made to
 * look as if it came to the issuer's own origin, so no answer names another host, and behind a
 * TLS-terminating proxy the URLs (and the cookies' Secure flag) follow the issuer's https. Must be
 * the first middleware.
 */
export function pinToIssuer(provider: Provider, issuer: string): void {
  const { host, protocol } = new URL(issuer);
  const scheme = protocol.slice(0, -1);
  provider.use(async (koa, next) => {
    koa.req.headers.host = host;
    delete koa.req.headers['x-forwarded-host'];
    Object.defineProperty(koa.request, 'protocol', { value: scheme });
    await next();
  });
}
