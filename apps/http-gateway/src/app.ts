import type { AuditSink } from '@svc/audit';
import type { BackendHealth } from '@svc/backend-client';
import type { IdentityClient } from '@svc/identity-client';
import type { Metrics } from '@svc/metrics';
import { selfTraceMiddleware, type Tracer } from '@svc/self-trace';
import type { AnyTool, BackendName, Backends, Logger } from '@svc/tool-kit';
import {
  AnswerBudget,
  type AnswerChecker,
  buildOpenApiDocument,
  createRestRouter,
  DEFAULT_ANSWER_BUDGET,
  REST_TOOL_PATH,
  ToolExecutor,
  ToolRegistry,
} from '@svc/tool-server';
import { allowOnly, httpErrorHandler, notFoundHandler } from '@svc/tool-server/http-errors';
import express, { type Express } from 'express';
import { authenticate, principalOf, restTransportOf } from './authenticate';
import { bodyLimitBytes } from './config';
import { batchRules, messagesIn } from './mcp-batches';
import { createMcpEndpoint } from './mcp-endpoint';
import { DEFAULT_SESSION_LIMITS, type McpSessionLimits, McpSessionStore } from './mcp-sessions';
import { isLoopbackBind, originGuard } from './origin-guard';
import { createLimits, type LimitsConfig } from './rate-limit';
import { requestIdMiddleware, requestIdOf } from './request-id';
import { selfTraceRoute } from './self-trace-route';

/** What the gateway needs of the health monitor (@svc/backend-client's satisfies it). */
export interface BackendAvailability {
  isAvailable(name: string): boolean;
  snapshot(): Record<string, BackendHealth>;
  subscribe(listener: (name: string, available: boolean) => void): () => void;
}

export interface GatewayAppConfig {
  /** The address the gateway listens on; a loopback bind turns on the Host check. */
  host: string;
  allowedOrigins: readonly string[];
  mcpStateless: boolean;
  bodyLimit: string;
  /** Per token and per project: rates and calls in progress (rate-limit.ts). */
  limits: LimitsConfig;
  publicUrl: string | undefined;
  sessions?: Partial<McpSessionLimits>;
  /** Bytes of large backend answers handled at once (answer-budget.ts); default 8 MB. */
  answerBudgetBytes?: number;
}

export interface GatewayDeps {
  tools: readonly AnyTool[];
  identity: IdentityClient;
  audit: AuditSink;
  backends: Backends;
  healthMonitor: BackendAvailability;
  /** Large answers are checked in these threads; without, on the event loop. */
  answerWorkers?: AnswerChecker;
  config: GatewayAppConfig;
  logger: Logger;
  metrics: Metrics;
  now?: () => number;
  /**
   * Self-tracing (SVC_SELF_TRACE_PROJECT): a server span per request, before every other step.
   * The backend clients get the same tracer (their calls' client spans). Absent: no middleware.
   */
  tracer?: Tracer;
}

export type GatewayApp = Express & {
  /** Sends tools/list_changed to every live MCP session (also done on every availability change). */
  notifyToolListChanged(): Promise<void>;
  /** Live MCP sessions of this instance (for operators and tests). */
  mcpSessionCount(): number;
  /**
   * Applies a change identity published (docs/architecture.md, token cache): a revoked token's MCP
   * sessions and streams are closed; an org whose capabilities changed is told its tool list did.
   */
  applyInvalidation(event: { kind: string; token_id?: string; org_id?: string }): Promise<void>;
  /** Closes MCP sessions and unsubscribes from the health monitor. */
  shutdown(): Promise<void>;
};

/** The HTTP gateway: docs/architecture.md, request pipeline, in that order, for MCP and REST alike. */
export function createGatewayApp(deps: GatewayDeps): GatewayApp {
  const { config, logger, metrics } = deps;
  const now = deps.now ?? Date.now;
  const checkHost = isLoopbackBind(config.host);
  const maxBodyBytes = bodyLimitBytes(config.bodyLimit);
  const registry = new ToolRegistry(deps.tools);
  const executor = new ToolExecutor({
    registry,
    audit: deps.audit,
    backends: deps.backends,
    isBackendAvailable: (backend: BackendName) => deps.healthMonitor.isAvailable(backend),
    logger,
    metrics,
    now,
    answerBudget: new AnswerBudget(
      { ...DEFAULT_ANSWER_BUDGET, totalBytes: config.answerBudgetBytes ?? DEFAULT_ANSWER_BUDGET.totalBytes },
      metrics,
    ),
    ...(deps.answerWorkers ? { answerWorkers: deps.answerWorkers } : {}),
  });
  const sessions = new McpSessionStore({ ...DEFAULT_SESSION_LIMITS, ...config.sessions }, now, logger);
  const toolBackends = new Set(registry.list().map((t) => t.backend as string));
  const unsubscribe = deps.healthMonitor.subscribe((name) => {
    // Only a backend that serves registered tools changes what tools/list returns.
    if (toolBackends.has(name)) void sessions.broadcastToolListChanged();
  });

  const auth = authenticate({ identity: deps.identity, logger, metrics, now });
  const limits = createLimits(config.limits, now, metrics);
  const jsonBody = express.json({ limit: maxBodyBytes });
  const mcp = createMcpEndpoint({
    executor,
    sessions,
    stateless: config.mcpStateless,
    maxBodyBytes,
    allowedOrigins: config.allowedOrigins,
    checkHost,
    logger,
    now,
  });

  const app = express();
  app.disable('x-powered-by');
  // Tool results are answers to POSTs, never cached: an ETag would only cost a hash of every body.
  app.set('etag', false);
  app.set('trust proxy', false);
  // Not traced: an MCP session's GET stream, open as long as the client likes (not a call).
  if (deps.tracer)
    app.use(
      selfTraceMiddleware(deps.tracer, {
        route: selfTraceRoute(registry),
        ignore: (req) => req.method === 'GET' && (req.url ?? '').split('?')[0] === '/mcp',
      }),
    );
  app.use(requestIdMiddleware());
  app.use(originGuard({ allowedOrigins: config.allowedOrigins, checkHost }));

  app.get('/healthz', (_req, res) => {
    const backends = deps.healthMonitor.snapshot();
    // Cheap and unauthenticated: the health monitor's last probes, no backend call here.
    const degraded = Object.values(backends).some(
      (b) => b.required && (b.breaker === 'open' || b.reachable === false),
    );
    res.json({ status: degraded ? 'degraded' : 'ok', backends });
  });

  app.get('/openapi.json', (_req, res) => {
    res.json(
      buildOpenApiDocument(
        executor.publishedTools(),
        config.publicUrl ? { serverUrl: config.publicUrl } : {},
      ),
    );
  });

  // The body is read before the limits, so a JSON-RPC batch counts each of its calls.
  app.post('/mcp', auth, jsonBody, batchRules(sessions), limits.middleware(messagesIn), mcp.post);
  app.get('/mcp', auth, limits.middleware(undefined, { concurrency: false }), mcp.get);
  app.delete('/mcp', auth, limits.middleware(undefined, { concurrency: false }), mcp.delete);

  app.post(REST_TOOL_PATH, auth, jsonBody, limits.middleware());
  app.use(createRestRouter({ executor, principalOf, requestIdOf, transportOf: restTransportOf }));

  // A known path asked with another method is 405 with Allow, before any authentication: the
  // answer is the same for every tool name, so it tells nothing about the catalog.
  allowOnly(app, '/healthz', ['GET']);
  allowOnly(app, '/openapi.json', ['GET']);
  allowOnly(app, '/mcp', ['POST', 'GET', 'DELETE']);

  app.use(notFoundHandler());
  app.use(httpErrorHandler(logger));

  return Object.assign(app, {
    notifyToolListChanged: () => sessions.broadcastToolListChanged(),
    mcpSessionCount: () => sessions.size,
    async applyInvalidation(event: { kind: string; token_id?: string; org_id?: string }) {
      if (event.kind === 'token' && event.token_id) await sessions.closeByToken(event.token_id);
      if (event.kind === 'org' && event.org_id) await sessions.toolListChangedForOrg(event.org_id);
    },
    async shutdown() {
      unsubscribe();
      await sessions.closeAll();
    },
  });
}
