import { QueryCancelledError } from './errors';

/**
 * Idle sessions handed out by priority (the ClickHouse `priority` of the statement: lower first,
 * 0 first of all), first come first served among equals. Fairness between tenants is the caller's
 * (the core's scheduler gives a busy project's calls a higher number); this makes sure one
 * session runs one statement at a time, since a second one sent to a busy chDB session would just
 * wait inside the engine, out of our sight and in arrival order.
 */
export class SessionPool<T> {
  readonly size: number;
  private readonly idle: T[];
  private readonly waiters: { priority: number; resolve: (session: T) => void }[] = [];
  private readonly everyone: readonly T[];
  private busy = 0;
  private drained: (() => void) | undefined;

  constructor(sessions: readonly T[]) {
    if (sessions.length === 0) throw new Error('a session pool needs at least one session');
    this.size = sessions.length;
    this.idle = [...sessions];
    this.everyone = sessions;
  }

  /**
   * `cost`: what a session would cost this statement to use (the settings it would have to SET
   * first): the idle session that costs least is taken, the most recently used among equals. A
   * statement that has to wait takes the first session freed, whatever it holds.
   */
  acquire(signal?: AbortSignal, priority = 0, cost?: (session: T) => number): Promise<T> {
    if (signal?.aborted) return Promise.reject(new QueryCancelledError());
    if (this.idle.length > 0) {
      let best = this.idle.length - 1;
      if (cost) {
        let least = cost(this.idle[best]!);
        for (let i = best - 1; i >= 0 && least > 0; i--) {
          const c = cost(this.idle[i]!);
          if (c < least) {
            least = c;
            best = i;
          }
        }
      }
      const [session] = this.idle.splice(best, 1);
      this.busy += 1;
      return Promise.resolve(session!);
    }
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        priority,
        resolve: (s: T) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(s);
        },
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at !== -1) this.waiters.splice(at, 1);
        reject(new QueryCancelledError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(session: T): void {
    if (this.waiters.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiters.length; i++) {
        if (this.waiters[i]!.priority < this.waiters[best]!.priority) best = i;
      }
      const [next] = this.waiters.splice(best, 1);
      next!.resolve(session);
      return;
    }
    this.busy -= 1;
    this.idle.push(session);
    if (this.busy === 0) this.drained?.();
  }

  /** Resolves once no session is in use (before closing them). */
  drain(): Promise<void> {
    if (this.busy === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drained = resolve;
    });
  }

  all(): readonly T[] {
    return this.everyone;
  }
}
