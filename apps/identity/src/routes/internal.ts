import express, { type Router } from 'express';
import type { IdentityContext } from '../context';
import type { OAuthIntrospection } from '../oauth/introspect';
import { addAuditAppendRoute } from './internal/audit-append';
import { addAuditReadRoutes } from './internal/audit-read';
import { addConsoleSessionRoutes } from './internal/console-sessions';
import { addIngestKeyRoute } from './internal/ingest-keys';
import { addIntrospectRoute } from './internal/introspect';
import { addInvalidationRoutes } from './internal/invalidations';
import { addOrgCapabilitiesRoute } from './internal/org-capabilities';

/** Service-to-service endpoints; the internal secret is checked before this router. */
export function internalRouter(
  ctx: IdentityContext,
  introspectOAuth: (token: string) => Promise<OAuthIntrospection>,
  /** The gateway's MCP resource, the audience of the console assistant's tokens. */
  resource: string,
): Router {
  const router = express.Router();
  addIntrospectRoute(router, ctx, introspectOAuth);
  addConsoleSessionRoutes(router, ctx, resource);
  addInvalidationRoutes(router, ctx);
  addOrgCapabilitiesRoute(router, ctx);
  addAuditAppendRoute(router, ctx);
  addAuditReadRoutes(router, ctx);
  addIngestKeyRoute(router, ctx);
  return router;
}
