import type { Metrics } from '@svc/metrics';
import { selfTraceMiddleware } from '@svc/self-trace';
import {
  buildOpenApiDocument,
  chosenTools,
  createRestRouter,
  REST_TOOL_PATH,
  type ToolExecutor,
  type ToolRegistry,
} from '@svc/tool-server';
import { allowOnly, httpErrorHandler, notFoundHandler } from '@svc/tool-server/http-errors';
import express, { type Express, type RequestHandler } from 'express';
import { authenticate, principalOf, restTransportOf } from './authenticate';
import { bodyLimitBytes } from './config';
import type { GatewayDeps } from './gateway-deps';
import { gatewayExecutor } from './gateway-executor';
import { batchRules, messagesIn } from './mcp-batches';
import { createMcpClients, type InvalidationEvent } from './mcp-clients';
import { createMcpEndpoint, type McpEndpoint } from './mcp-endpoint';
import { mcpRequestOf, mcpRequestRules } from './mcp-request';
import type { McpSessionStore } from './mcp-sessions';
import { bearerChallenge, oauthResourceOf, protectedResourceRouter } from './oauth-protected-resource';
import { hostGuard, isLoopbackBind, originGuard } from './origin-guard';
import { createLimits } from './rate-limit';
import { requestIdMiddleware, requestIdOf } from './request-id';
import { requestedToolsets } from './requested-toolsets';
import { selfTraceRoute } from './self-trace-route';

export type GatewayApp = Express & {
  /**
   * Sends tools/list_changed to every live legacy MCP session and modern listen stream (also done
   * on every availability change).
   */
  notifyToolListChanged(): Promise<void>;
  /** Live legacy MCP sessions of this instance (for operators and tests). */
  mcpSessionCount(): number;
  /** Open modern listen streams (`subscriptions/listen`) of this instance. */
  mcpListenStreamCount(): number;
  /**
   * Applies a change identity published (docs/architecture.md, "Token cache"): a revoked token's MCP
   * sessions and streams (legacy GET, modern listen) are closed; an org whose capabilities changed
   * is told its tool list did.
   */
  applyInvalidation(event: InvalidationEvent): Promise<void>;
  /** Closes MCP sessions and streams and unsubscribes from the health monitor. */
  shutdown(): Promise<void>;
};

/** The HTTP gateway: docs/architecture.md, "The request pipeline", in that order, for MCP and REST alike. */
export function createGatewayApp(deps: GatewayDeps): GatewayApp {
  const { config, logger, metrics } = deps;
  const now = deps.now ?? Date.now;
  const maxBodyBytes = bodyLimitBytes(config.bodyLimit);
  const { registry, executor } = gatewayExecutor(deps, now);
  const clients = createMcpClients({
    limits: config.sessions,
    registry,
    healthMonitor: deps.healthMonitor,
    metrics,
    logger,
    now,
  });
  const auth = authenticate({
    identity: deps.identity,
    logger,
    metrics,
    now,
    resource: oauthResourceOf(config).resource,
  });
  const limits = createLimits(config.limits, now, metrics);
  const jsonBody = express.json({ limit: maxBodyBytes });
  const mcp = createMcpEndpoint({
    executor,
    sessions: clients.sessions,
    listen: clients.listen,
    stateless: config.mcpStateless,
    maxBodyBytes,
    maxListenStreams: clients.maxListenStreams,
    ...(deps.views ? { views: deps.views } : {}),
    ...(deps.toolsets ? { toolsets: deps.toolsets } : {}),
    ...(deps.guides ? { guides: deps.guides } : {}),
    logger,
    now,
  });

  const app = express();
  app.disable('x-powered-by');
  // Tool results are answers to POSTs, never cached: an ETag would only cost a hash of every body.
  app.set('etag', false);
  app.set('trust proxy', false);
  useGuards(app, deps, registry);
  usePublicRoutes(app, deps, executor);
  const pipeline = { auth, jsonBody, limits };
  useMcpRoutes(app, pipeline, mcp, clients.sessions, metrics);
  app.post(REST_TOOL_PATH, auth, jsonBody, limits.middleware());
  app.use(createRestRouter({ executor, principalOf, requestIdOf, transportOf: restTransportOf }));

  // A known path asked with another method is 405 with Allow, before any authentication: the
  // answer is the same for every tool name, so it tells nothing about the catalog.
  allowOnly(app, '/healthz', ['GET']);
  allowOnly(app, '/openapi.json', ['GET']);
  allowOnly(app, '/mcp', ['POST', 'GET', 'DELETE']);

  app.use(notFoundHandler());
  app.use(bearerChallenge(oauthResourceOf(config)));
  app.use(httpErrorHandler(logger));

  return Object.assign(app, {
    notifyToolListChanged: () => clients.toolListChanged(),
    mcpSessionCount: () => clients.sessions.size,
    mcpListenStreamCount: () => clients.listen.size,
    applyInvalidation: clients.applyInvalidation,
    async shutdown() {
      await Promise.all([clients.close(), mcp.close()]);
    },
  });
}

/** What runs before any route: self-tracing, the request id, the Host and Origin checks. */
function useGuards(app: Express, deps: GatewayDeps, registry: ToolRegistry): void {
  // Not traced: a legacy session's GET stream and a modern listen stream, open as long as the
  // client likes (not calls; a listen stream is known from its Mcp-Method header, checked later).
  if (deps.tracer)
    app.use(
      selfTraceMiddleware(deps.tracer, {
        route: selfTraceRoute(registry),
        ignore: (req) =>
          (req.url ?? '').split('?')[0] === '/mcp' &&
          (req.method === 'GET' || req.headers['mcp-method'] === 'subscriptions/listen'),
      }),
    );
  app.use(requestIdMiddleware());
  app.use(hostGuard(isLoopbackBind(deps.config.host)));
  // Public metadata for clients that sign in with OAuth, browser ones included: before the Origin
  // check. Built from the configuration alone, never from the request's Host.
  app.use(protectedResourceRouter(oauthResourceOf(deps.config)));
  app.use(originGuard({ allowedOrigins: deps.config.allowedOrigins }));
}

/** /healthz and /openapi.json: unauthenticated. */
function usePublicRoutes(app: Express, deps: GatewayDeps, executor: ToolExecutor): void {
  app.get('/healthz', (_req, res) => {
    const backends = deps.healthMonitor.snapshot();
    // Cheap and unauthenticated: the health monitor's last probes, no backend call here.
    const degraded = Object.values(backends).some(
      (b) => b.required && (b.breaker === 'open' || b.reachable === false),
    );
    res.json({ status: degraded ? 'degraded' : 'ok', backends });
  });
  // `?toolsets=` (or X-MCP-Toolsets) narrows the document to those groups' paths, as on /mcp.
  app.get('/openapi.json', (req, res) => {
    const tools = chosenTools(executor.publishedTools(), requestedToolsets(req, deps.toolsets));
    res.json(buildOpenApiDocument(tools, deps.config.publicUrl ? { serverUrl: deps.config.publicUrl } : {}));
  });
}

interface Pipeline {
  auth: RequestHandler;
  jsonBody: RequestHandler;
  limits: ReturnType<typeof createLimits>;
}

/**
 * /mcp. The body is read before the limits, so a JSON-RPC batch counts each of its calls; a modern
 * listen stream counts against the rates, not the calls in progress (it is not one).
 */
function useMcpRoutes(
  app: Express,
  { auth, jsonBody, limits }: Pipeline,
  mcp: McpEndpoint,
  sessions: McpSessionStore,
  metrics: Metrics,
): void {
  const mcpRules = mcpRequestRules(metrics);
  const notListening = (req: express.Request) => {
    const read = mcpRequestOf(req);
    return !(read?.era === 'modern' && read.listen);
  };
  app.post(
    '/mcp',
    auth,
    jsonBody,
    mcpRules,
    batchRules(sessions),
    limits.middleware(messagesIn, { concurrency: notListening }),
    mcp.post,
  );
  app.get('/mcp', auth, mcpRules, limits.middleware(undefined, { concurrency: false }), mcp.get);
  app.delete('/mcp', auth, mcpRules, limits.middleware(undefined, { concurrency: false }), mcp.delete);
}
