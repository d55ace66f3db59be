import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import { RateLimitedError } from '@svc/errors';
import type { Logger, Principal } from '@svc/tool-kit';
import { SessionCapacityError } from './mcp-sessions';
import { planRoom, type SessionCapLimits, type SessionSlot } from './session-caps';

// A modern (2026-07-28) client hears of a changed tool list on the stream of its
// `subscriptions/listen` request: the revision's replacement for a session's GET stream. The SDK
// serves those streams; this is what the gateway adds to them: the tenant of each stream (an org's
// capability switch is told to that org's streams only), the same caps per token, per project and
// per instance as legacy sessions (a stream is always in use, so a tenant at its cap is refused,
// never anybody's stream closed), and closing a revoked token's streams.

interface ListenStream extends SessionSlot {
  /** Aborting it ends the stream (the SDK tears the subscription down, the response ends). */
  readonly abort: AbortController;
}

/** Who a listen stream opened now belongs to (set around the SDK's handling of the request). */
const opening = new AsyncLocalStorage<ListenStream>();

export class ListenStreams {
  readonly #streams = new Map<string, ListenStream>();
  readonly #listeners = new Map<(event: ServerEvent) => void, string | null>();
  readonly #limits: SessionCapLimits;
  readonly #now: () => number;
  readonly #logger: Logger;

  constructor(limits: SessionCapLimits, now: () => number, logger: Logger) {
    this.#limits = limits;
    this.#now = now;
    this.#logger = logger;
  }

  get size(): number {
    return this.#streams.size;
  }

  /**
   * The event bus the SDK's listen streams subscribe to. A stream subscribes while its request is
   * being handled (inside `serve`), so the org it is for is the one `serve` holds.
   */
  readonly bus: ServerEventBus = {
    publish: (event) => this.#publish(event, () => true),
    subscribe: (listener) => {
      this.#listeners.set(listener, opening.getStore()?.orgId ?? null);
      return () => {
        this.#listeners.delete(listener);
      };
    },
  };

  #publish(event: ServerEvent, forOrg: (orgId: string | null) => boolean): void {
    for (const [listener, orgId] of this.#listeners) {
      if (!forOrg(orgId)) continue;
      try {
        listener(event);
      } catch (err) {
        this.#logger.debug({ err }, 'listen notification not delivered');
      }
    }
  }

  /**
   * Serves one `subscriptions/listen` request of `principal` (`handle` hands it to the SDK), after
   * taking a place for it under the caps: 429 when the token's or project's streams are all at
   * their cap, 503 when the instance is full of other projects' streams (session-caps.ts). The
   * place is given back when `abort` aborts (the client went away, or the token was revoked).
   */
  async serve<T>(principal: Principal, abort: AbortController, handle: () => Promise<T>): Promise<T> {
    const tokenId = principal.tokenId ?? `local:${principal.projectId}`;
    const plan = planRoom(
      [...this.#streams.values()],
      { tokenId, projectId: principal.projectId, orgId: principal.orgId },
      this.#limits,
      this.#now(),
    );
    if (plan.kind === 'busy') {
      throw new RateLimitedError(
        `This ${plan.scope === 'org' ? 'organization' : plan.scope} holds its maximum of MCP listen streams; close one or retry later.`,
        plan.retryAfterSeconds,
      );
    }
    if (plan.kind === 'full')
      throw new SessionCapacityError(this.#limits.maxSessions, plan.retryAfterSeconds);
    const stream: ListenStream = {
      id: randomUUID(),
      tokenId,
      projectId: principal.projectId,
      orgId: principal.orgId,
      active: 1,
      lastSeen: this.#now(),
      abort,
    };
    this.#streams.set(stream.id, stream);
    abort.signal.addEventListener('abort', () => this.#streams.delete(stream.id), { once: true });
    return opening.run(stream, handle);
  }

  /** Tells the streams of one org (a capability switched), or every stream, that the list changed. */
  toolListChanged(orgId?: string): void {
    this.#publish({ kind: 'tools_list_changed' }, (org) => orgId === undefined || org === orgId);
  }

  /** Ends every listen stream of a revoked token; answers how many. */
  closeByToken(tokenId: string): number {
    const doomed = [...this.#streams.values()].filter((s) => s.tokenId === tokenId);
    for (const stream of doomed) stream.abort.abort();
    return doomed.length;
  }

  closeAll(): void {
    for (const stream of [...this.#streams.values()]) stream.abort.abort();
  }
}
