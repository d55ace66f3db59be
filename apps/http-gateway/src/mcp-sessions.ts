import { randomUUID } from 'node:crypto';
import type { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { BackendUnavailableError, RateLimitedError } from '@svc/errors';
import type { Logger, Principal } from '@svc/tool-kit';
import { DEFAULT_SESSION_CAPS, planRoom, type SessionCapLimits, type SessionSlot } from './session-caps';

export interface McpSession {
  readonly id: string;
  /** The token that created the session; any other token gets 404 for it. */
  readonly tokenId: string;
  /** The token's project (a token's project never changes): the tenant the session counts for. */
  readonly projectId: string;
  /** The token's org (null without one): sessions are capped per org too. */
  readonly orgId: string | null;
  /** Refreshed by every (re-authenticated) request of the session. */
  principal: Principal;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** HTTP requests in progress, including an open GET SSE stream: a session in use never expires. */
  active: number;
  /** The MCP protocol version negotiated at initialize. */
  readonly protocolVersion: string;
  /** Its token was revoked: the session closes as soon as its requests in flight are answered. */
  closing?: boolean;
}

export type McpSessionLimits = SessionCapLimits;
export const DEFAULT_SESSION_LIMITS: McpSessionLimits = DEFAULT_SESSION_CAPS;

/**
 * A revoked token's session waits this long at most for its calls in flight (bounded by the
 * backends' own timeouts, 15 s) before it is closed regardless.
 */
const REVOKED_DRAIN_MS = 60_000;

/** A place held for a session being opened: counted against the caps, never evicted. */
export interface SessionReservation {
  /** The session was opened: it takes the reserved place. */
  fill(session: McpSession): void;
  /** The initialize failed: the place is free again. */
  release(): void;
}

/**
 * The instance's MCP sessions cannot be had, a 503 of its own wording (the error hierarchy's
 * backend_unavailable with Retry-After): the instance is full of other projects' sessions.
 */
export class SessionCapacityError extends BackendUnavailableError {
  constructor(maxSessions: number, retryAfterSeconds: number) {
    super('MCP session', retryAfterSeconds);
    this.message =
      `This gateway holds its maximum of ${maxSessions} MCP sessions; retry later, ` +
      'or use the REST tool routes, which need no session.';
  }
}

/**
 * Live MCP sessions of this gateway instance: legacy (2025) clients only, which is why they alone
 * need sticky routing by Mcp-Session-Id behind a load balancer (modern clients have no session).
 */
export class McpSessionStore {
  readonly #sessions = new Map<string, McpSession>();
  /** Places held for sessions being opened (initialize in progress). */
  readonly #reserved = new Map<string, SessionSlot>();
  readonly #limits: McpSessionLimits;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #timer: NodeJS.Timeout;

  constructor(limits: McpSessionLimits, now: () => number, logger: Logger) {
    this.#limits = limits;
    this.#now = now;
    this.#logger = logger;
    this.#timer = setInterval(() => this.expireIdle(), Math.min(limits.idleMs, 60_000));
    this.#timer.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Sessions with a request or stream in progress (read when metrics are rendered). */
  get inUse(): number {
    let n = 0;
    for (const session of this.#sessions.values()) if (session.active > 0) n++;
    return n;
  }

  /** Places held for sessions being opened. */
  get opening(): number {
    return this.#reserved.size;
  }

  get(id: string): McpSession | undefined {
    return this.#sessions.get(id);
  }

  /**
   * Holds a place for one more session of this principal's token, after closing the idle session
   * the caps say must go (session-caps.ts: only ever one of the same project). Throws 429 when the
   * token's or project's sessions are all busy at their cap, 503 when the instance is full of
   * other projects' sessions; both with Retry-After. The evicted client gets 404 on its next
   * request and re-initializes, as the MCP spec prescribes.
   */
  reserve(tokenId: string, projectId: string, orgId: string | null): SessionReservation {
    this.expireIdle();
    const plan = planRoom(
      [...this.#sessions.values(), ...this.#reserved.values()],
      { tokenId, projectId, orgId },
      this.#limits,
      this.#now(),
    );
    if (plan.kind === 'busy') {
      const cap = {
        token: this.#limits.maxSessionsPerToken,
        project: this.#limits.maxSessionsPerProject,
        org: this.#limits.maxSessionsPerOrg,
      }[plan.scope];
      const whose = plan.scope === 'org' ? 'organization' : plan.scope;
      throw new RateLimitedError(
        `This ${whose} holds its maximum of ${cap} MCP sessions` +
          (plan.scope === 'org' ? '; ' : ', all in use; ') +
          'end one (DELETE /mcp) or retry later.',
        plan.retryAfterSeconds,
      );
    }
    if (plan.kind === 'full') {
      this.#logger.warn(
        { project_id: projectId, sessions: this.#sessions.size, max: this.#limits.maxSessions },
        'MCP session refused: instance at its session cap',
      );
      throw new SessionCapacityError(this.#limits.maxSessions, plan.retryAfterSeconds);
    }
    for (const id of plan.evict) {
      this.#logger.info({ session: id, project_id: projectId }, 'MCP session evicted (session cap)');
      void this.close(id);
    }
    const key = randomUUID();
    this.#reserved.set(key, { id: key, tokenId, projectId, orgId, active: 1, lastSeen: this.#now() });
    return {
      fill: (session) => {
        this.#reserved.delete(key);
        this.#sessions.set(session.id, session);
      },
      release: () => {
        this.#reserved.delete(key);
      },
    };
  }

  /** A request or stream of the session begins. */
  enter(session: McpSession): void {
    session.active++;
    session.lastSeen = this.#now();
  }

  /** A request or stream of the session has ended; a revoked session closes once nothing is left. */
  leave(session: McpSession): void {
    session.active--;
    session.lastSeen = this.#now();
    if (session.closing && session.active <= 0) void this.close(session.id);
  }

  /** Forgets a session whose transport has closed (DELETE, expiry, shutdown). */
  forget(id: string): void {
    this.#sessions.delete(id);
  }

  async close(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    await session.server
      .close()
      .catch((err) => this.#logger.warn({ err, session: id }, 'closing MCP session failed'));
  }

  expireIdle(): void {
    const cutoff = this.#now() - this.#limits.idleMs;
    for (const session of [...this.#sessions.values()]) {
      if (session.active === 0 && session.lastSeen < cutoff) {
        this.#logger.info({ session: session.id }, 'MCP session expired');
        void this.close(session.id);
      }
    }
  }

  /**
   * Ends every session of a token (revoked). Its GET stream closes now; a POST in flight was
   * authorized when it started and is answered first, its session closing right after (closing
   * the transport under it would drop its answer and leave the client waiting). Every later
   * request of the token is a 401 at authentication, over a connection that stays usable.
   * Answers how many sessions were ended.
   */
  async closeByToken(tokenId: string): Promise<number> {
    const doomed = [...this.#sessions.values()].filter((s) => s.tokenId === tokenId);
    const now: Promise<void>[] = [];
    for (const session of doomed) {
      session.closing = true;
      if (session.active <= 0) {
        now.push(this.close(session.id));
        continue;
      }
      session.transport.closeStandaloneSSEStream();
      setTimeout(() => void this.close(session.id), REVOKED_DRAIN_MS).unref();
    }
    await Promise.all(now);
    if (doomed.length > 0)
      this.#logger.info(
        { token_id: tokenId, sessions: doomed.length },
        'MCP sessions of a revoked token closed',
      );
    return doomed.length;
  }

  /** Tells the sessions of one org that its tool list may have changed (a capability switched). */
  async toolListChangedForOrg(orgId: string): Promise<void> {
    await Promise.all(
      [...this.#sessions.values()]
        .filter((s) => s.principal.orgId === orgId)
        .map((s) => s.server.sendToolListChanged().catch(() => {})),
    );
  }

  /** Tells every live session that the tool list changed (a backend group came or went). */
  async broadcastToolListChanged(): Promise<void> {
    await Promise.all(
      [...this.#sessions.values()].map((s) =>
        s.server
          .sendToolListChanged()
          .catch((err) => this.#logger.debug({ err, session: s.id }, 'list_changed not delivered')),
      ),
    );
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all([...this.#sessions.keys()].map((id) => this.close(id)));
  }
}
