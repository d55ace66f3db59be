import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger, Principal } from '@svc/tool-kit';

export interface McpSession {
  readonly id: string;
  /** The token that created the session; any other token gets 404 for it. */
  readonly tokenId: string;
  /** Refreshed by every (re-authenticated) request of the session. */
  principal: Principal;
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  lastSeen: number;
  /** HTTP requests in progress, including an open GET SSE stream: a session in use never expires. */
  active: number;
  /** The MCP protocol version negotiated at initialize. */
  readonly protocolVersion: string;
}

export interface McpSessionLimits {
  idleMs: number;
  maxSessions: number;
  maxSessionsPerToken: number;
}

export const DEFAULT_SESSION_LIMITS: McpSessionLimits = {
  idleMs: 30 * 60_000,
  maxSessions: 1000,
  maxSessionsPerToken: 100,
};

/** Live MCP sessions of this gateway instance (sticky routing by Mcp-Session-Id). */
export class McpSessionStore {
  readonly #sessions = new Map<string, McpSession>();
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

  get(id: string): McpSession | undefined {
    return this.#sessions.get(id);
  }

  /**
   * Makes room for one more session of this token. At a cap, the least recently used idle session
   * (of this token for the per-token cap, of anyone for the global one) is closed: clients that
   * never send DELETE cannot lock a token out, and the evicted client re-initializes on its 404
   * as the MCP spec prescribes. False only when every candidate is busy.
   */
  async makeRoomFor(tokenId: string): Promise<boolean> {
    const ofToken = [...this.#sessions.values()].filter((s) => s.tokenId === tokenId);
    if (ofToken.length >= this.#limits.maxSessionsPerToken && !(await this.#evictOldestIdle(ofToken))) {
      return false;
    }
    if (
      this.#sessions.size >= this.#limits.maxSessions &&
      !(await this.#evictOldestIdle([...this.#sessions.values()]))
    ) {
      return false;
    }
    return true;
  }

  async #evictOldestIdle(candidates: McpSession[]): Promise<boolean> {
    const idle = candidates.filter((s) => s.active === 0).sort((a, b) => a.lastSeen - b.lastSeen);
    const victim = idle[0];
    if (!victim) return false;
    this.#logger.info({ session: victim.id }, 'MCP session evicted (session cap)');
    await this.close(victim.id);
    return true;
  }

  add(session: McpSession): void {
    this.#sessions.set(session.id, session);
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
   * Ends every session of a token (revoked): its open GET stream closes with it, and its next
   * request is a 401 anyway. Answers how many were closed.
   */
  async closeByToken(tokenId: string): Promise<number> {
    const doomed = [...this.#sessions.values()].filter((s) => s.tokenId === tokenId);
    await Promise.all(doomed.map((s) => this.close(s.id)));
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
