import type Provider from 'oidc-provider';

/**
 * Dynamic Client Registration from a browser page (the MCP Inspector registers itself from its web
 * UI): oidc-provider answers CORS on its discovery and token endpoints, not on registration. The
 * endpoint is open to anyone anyway and takes no cookie, so any origin may call it, without
 * credentials; a preflight is answered here.
 */
export function allowBrowserRegistration(provider: Provider): void {
  provider.use(async (koa, next) => {
    if (koa.path !== '/reg') return next();
    const origin = koa.get('origin');
    if (!origin) return next();
    if (koa.method === 'OPTIONS') {
      koa.status = 204;
      koa.set('Access-Control-Allow-Origin', '*');
      koa.set('Access-Control-Allow-Methods', 'POST');
      // Whatever headers the page asks to send (the Inspector adds MCP-Protocol-Version): nothing
      // here reads a header that could carry a credential.
      koa.set('Access-Control-Allow-Headers', koa.get('access-control-request-headers') || 'content-type');
      koa.set('Access-Control-Max-Age', '3600');
      return;
    }
    await next();
    koa.set('Access-Control-Allow-Origin', '*');
  });
}
