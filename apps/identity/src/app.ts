import { BackendUnavailableError } from '@svc/errors';
import type { Metrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import { selfTraceMiddleware, type Tracer } from '@svc/self-trace';
import type { Logger } from '@svc/tool-kit';
import { httpErrorHandler, notFoundHandler } from '@svc/tool-server/http-errors';
import { requireInternalSecret } from '@svc/tool-server/internal-auth';
import express, { type Express } from 'express';
import type { CheckpointStore } from './checkpoints/checkpoint-store';
import { clientAddressResolver } from './client-address';
import type { IdentityContext } from './context';
import { createInvalidationHub, type InvalidationHub } from './invalidation/hub';
import { createAuthorizationServer } from './oauth/authorization-server';
import { introspectOAuthToken } from './oauth/introspect';
import { OAUTH_MOUNT, type OAuthOptions } from './oauth/oauth-options';
import { adminRouter } from './routes/admin';
import { consoleRouter } from './routes/console';
import { internalRouter } from './routes/internal';

export interface IdentityDeps {
  /** Migrated with `migrateIdentity` before the app serves. */
  db: Postgres;
  internalSecret: string;
  logger: Logger;
  metrics: Metrics;
  /** Milliseconds since the epoch; defaults to Date.now. */
  now?: () => number;
  /** Public address of observability-core used in ingest-key DSNs; default http://localhost:8080. */
  ingestEndpoint?: string;
  /** The gateways' invalidation channel; made here when absent (it runs only while subscribed to). */
  invalidations?: InvalidationHub;
  /**
   * Signed checkpoints of the audit chains, kept away from `db` (wireIdentity opens the file under
   * the checkpoint dir; tests a throwaway one). Required: an audit store without its anchor would
   * let whoever controls the database rewind the chains unnoticed. Closed by the caller.
   */
  checkpoints: CheckpointStore;
  /** Self-tracing (SVC_SELF_TRACE_PROJECT): a server span per request. Absent: no middleware. */
  tracer?: Tracer;
  /** The OAuth authorization server for MCP clients; default: every service on localhost's usual ports. */
  oauth?: OAuthOptions;
  /**
   * Reverse proxies whose X-Forwarded-For names the client (SVC_IDENTITY_TRUSTED_PROXIES, express's
   * `trust proxy` forms); default none: the socket's address is the client's.
   */
  trustedProxies?: string[];
}

export const DEFAULT_OAUTH: OAuthOptions = {
  issuer: `http://localhost:8081${OAUTH_MOUNT}`,
  resource: 'http://localhost:8092/mcp',
  consoleUrl: 'http://localhost:8094',
};

/** The identity service (docs/architecture.md, docs/internal-api.md) as an express app. */
export function createIdentityApp(deps: IdentityDeps): Express {
  const now = deps.now ?? Date.now;
  const app = express();
  app.disable('x-powered-by');
  // Answers are never revalidated (audit appends, introspection): an ETag would only hash each one.
  app.set('etag', false);
  // Throttling counts clients by address: behind a reverse proxy, the one it names (clients of the
  // authorization server reach identity directly, not through the console).
  app.set('trust proxy', deps.trustedProxies?.length ? deps.trustedProxies : false);
  const ctx: IdentityContext = {
    db: deps.db,
    logger: deps.logger,
    metrics: deps.metrics,
    clock: () => new Date(now()),
    ingestEndpoint: deps.ingestEndpoint ?? 'http://localhost:8080',
    invalidations:
      deps.invalidations ??
      createInvalidationHub({ db: deps.db, logger: deps.logger, metrics: deps.metrics }),
    checkpoints: deps.checkpoints,
    clientAddress: clientAddressResolver(deps.internalSecret),
  };
  app.set('query parser', 'simple');
  // Not traced: each gateway's invalidation stream (open as long as the gateway runs) and its
  // acknowledgements, once a second: a lease keeping itself alive, not a call anyone waits for.
  if (deps.tracer)
    app.use(
      selfTraceMiddleware(deps.tracer, {
        untraced: ['/internal/v1/invalidations', '/internal/v1/invalidations/ack'],
      }),
    );
  // The authorization server parses its own bodies (forms, DCR's JSON), so it comes first. Its
  // RFC 8414 metadata is also at the path-aware address of an issuer with a path.
  const oauth = deps.oauth ?? DEFAULT_OAUTH;
  const authorizationServer = createAuthorizationServer(ctx, oauth, deps.internalSecret);
  const { provider } = authorizationServer;
  const oauthServer = provider.callback();
  app.use(OAUTH_MOUNT, oauthServer);
  // GET and its CORS preflight (browser clients such as the Inspector send MCP-Protocol-Version).
  app.all(`/.well-known/oauth-authorization-server${new URL(oauth.issuer).pathname}`, (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'OPTIONS') return next();
    req.url = '/.well-known/oauth-authorization-server';
    req.originalUrl = `${OAUTH_MOUNT}/.well-known/oauth-authorization-server`;
    oauthServer(req, res);
  });
  app.use(express.json({ limit: '2mb' }));

  app.get('/healthz', async (_req, res) => {
    try {
      await deps.db.ping();
    } catch (err) {
      throw new BackendUnavailableError('identity store', 5, { cause: err });
    }
    res.json({ status: 'ok' });
  });

  app.use('/internal', requireInternalSecret(deps.internalSecret));
  app.use('/internal/v1/admin', adminRouter(ctx));
  app.use(
    '/internal',
    internalRouter(
      ctx,
      (token) => introspectOAuthToken(ctx, provider, oauth.resource, token),
      oauth.resource,
    ),
  );
  app.use('/console', consoleRouter(ctx, authorizationServer));

  app.use(notFoundHandler());
  app.use(httpErrorHandler(deps.logger));
  return app;
}
