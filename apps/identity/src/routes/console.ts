import express, { type Router } from 'express';
import type { IdentityContext } from '../context';
import type { AuthorizationServer } from '../oauth/authorization-server';
import { addConsentRoutes } from '../oauth/consent';
import { passwordGuard } from '../password-guard';
import { addApiTokenRoute } from './console/api-tokens';
import { addAuditRoutes } from './console/audit';
import { addIngestKeyRoutes } from './console/ingest-keys';
import { addLoginRoute } from './console/login';
import { addLogoutRoute } from './console/logout';
import { addMcpTokenRoutes } from './console/mcp-tokens';
import { addMeRoute } from './console/me';
import { addNamesRoute } from './console/names';
import { requireSession, sessionHelpers } from './console/session';
import { addStepUpRoute } from './console/step-up';

/** The human-facing API of the web console: session bearer from login, never an MCP token. */
export function consoleRouter(ctx: IdentityContext, oauth: AuthorizationServer): Router {
  const router = express.Router();
  const passwords = passwordGuard(ctx);
  const session = sessionHelpers(ctx);

  addLoginRoute(router, ctx, passwords);
  // Everything below needs a live session.
  router.use(requireSession(ctx));
  // The OAuth consent page's calls: approve needs the same step-up as making a token here.
  addConsentRoutes(router, ctx, oauth, session);
  addMeRoute(router, ctx);
  addLogoutRoute(router, ctx);
  addStepUpRoute(router, ctx, passwords);
  addMcpTokenRoutes(router, ctx, session);
  addApiTokenRoute(router, ctx, session);
  addAuditRoutes(router, ctx, session);
  addNamesRoute(router, ctx);
  addIngestKeyRoutes(router, ctx, session);
  return router;
}
