import type { Logger } from './logger';

export type Capability = 'base' | 'vis_trace' | 'vis_recall' | 'vis_ai_verifier';
export const CONTROLLED_CAPABILITIES: readonly Capability[] = ['vis_trace', 'vis_recall', 'vis_ai_verifier'];

export type BackendName = 'core' | 'recall' | 'copilot';
/** How a call came in; `console`: the web console's own calls (REST with its console-only token). */
export type Transport = 'mcp' | 'rest' | 'stdio' | 'console';

/** Who is calling, as resolved by the transport (token introspection, or stdio env). */
export interface Principal {
  tokenId: string | null;
  userId: string | null;
  /** null in stdio mode without SVC_MCP_ORG_ID: controlled tools then fail closed. */
  orgId: string | null;
  /** The one project every call is bound to. Never taken from tool input. */
  projectId: string;
  /** Controlled capabilities the org has; `base` is implied. */
  capabilities: ReadonlySet<Capability>;
}

/**
 * Who a backend call is made for, sent as the `X-Svc-Actor` header (JSON) on internal calls, so a
 * backend can record who read what (the recall audit trail). Internal calls are authenticated by
 * the internal secret; the gateway or stdio server vouches for the actor.
 */
export interface CallActor {
  token_id: string | null;
  user_id: string | null;
  /**
   * The caller's org (null without one, stdio): a backend gives each org a share of what all
   * tenants draw on (recall's read slots), besides each project's.
   */
  org_id?: string | null;
  transport: Transport;
  /**
   * The controlled capabilities the caller's org has. A backend that calls other tools on the
   * caller's behalf (copilot) keeps to them, so a verifier cannot read what the org may not.
   */
  capabilities?: Capability[];
}

export const ACTOR_HEADER = 'x-svc-actor';

/** The backend attempt an answer belongs to; its signal is made only when asked for (most answers never wait). */
export interface AnswerAttempt {
  readonly signal: AbortSignal;
}

/**
 * The tool request context: what one call carries from the executor to the backend it is forwarded
 * to. Built once (the executor) and passed on as one object, so a field added here reaches the
 * backend client without being copied on the way.
 */
export interface ToolRequestContext {
  requestId: string;
  /** The caller's W3C traceparent, continued downstream when valid. */
  traceparent?: string;
  signal?: AbortSignal;
  /**
   * Called with the answer's announced size before its body is read; resolves when it may be read
   * (large answers wait for bytes of the executor's answer budget), rejects when it may not.
   * `attempt.signal` aborts when the caller leaves: the wait is dropped then.
   */
  reserveAnswer?: (bytes: number | undefined, attempt?: AnswerAttempt) => Promise<void>;
  /**
   * A successful answer announced at least this many bytes long comes back as an UnparsedAnswer
   * (its bytes, not parsed); smaller ones, and callers that leave this out, get the parsed JSON.
   */
  unparsedFrom?: number;
}

/** A call to a backend's tool: the request context, and who the call is made for. */
export interface BackendCallOptions extends ToolRequestContext {
  actor?: CallActor;
}

/** How a handler reaches a backend service: the project always travels in the path. */
export interface BackendToolCaller {
  callTool(projectId: string, tool: string, input: unknown, options: BackendCallOptions): Promise<unknown>;
}

export type Backends = Partial<Record<BackendName, BackendToolCaller>>;

/** Everything a handler may use. Handlers never read process.env or module singletons. */
export interface ToolContext {
  projectId: string;
  principal: Principal;
  transport: Transport;
  /** The call's cancellation (the same signal as `request.signal`), for the handler's own queries. */
  signal: AbortSignal;
  logger: Logger;
  backend(name: BackendName): BackendToolCaller;
  /** Passed on as it is to a backend the tool is forwarded to (BackendCallOptions). */
  request: ToolRequestContext;
}
