import type { AuditSink } from '@svc/audit';
import type { BackendHealth } from '@svc/backend-client';
import type { IdentityClient } from '@svc/identity-client';
import type { Metrics } from '@svc/metrics';
import type { Tracer } from '@svc/self-trace';
import type { AnyTool, Backends, InvestigationGuide, Logger } from '@svc/tool-kit';
import type { AnswerChecker, CursorSeal, McpViews, Toolsets } from '@svc/tool-server';
import type { McpSessionLimits } from './mcp-sessions';
import type { LimitsConfig } from './rate-limit';

// What the gateway is built from: its configuration and the services it calls. Apart from app.ts,
// so the parts the app is made of (gateway-executor.ts, mcp-clients.ts) can name them without
// importing the app.

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
  /** identity's OAuth issuer for MCP clients that sign in (default http://localhost:8081/oauth). */
  oauthIssuer?: string;
  sessions?: Partial<McpSessionLimits>;
  /** Bytes of large backend answers handled at once (answer-budget.ts); default 8 MB. */
  answerBudgetBytes?: number;
}

export interface GatewayDeps {
  tools: readonly AnyTool[];
  /** MCP Apps views served on /mcp (resources, and `_meta` on their tools). Absent: none. */
  views?: McpViews;
  /** The groups an MCP client may choose to load (`?toolsets=`, `X-MCP-Toolsets`). Absent: none. */
  toolsets?: Toolsets;
  /** Investigation guides served as MCP prompts. Absent: none. */
  guides?: readonly InvestigationGuide[];
  identity: IdentityClient;
  audit: AuditSink;
  backends: Backends;
  healthMonitor: BackendAvailability;
  /** Large answers are checked in these threads; without, on the event loop. */
  answerWorkers?: AnswerChecker;
  /** Opens and seals list tools' cursors (keyed by the internal secret). Absent: cursors go to the backend unopened. */
  cursors?: CursorSeal;
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
