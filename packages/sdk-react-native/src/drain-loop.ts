import { unrefTimer } from './timers';

/**
 * What the outbox and recall's uploads share: `pass` sends what waits, in order, and says whether
 * all of it is done. Passes run one at a time; `run()` while one runs makes it go once more after
 * (for what came in meanwhile). A pass that could not finish (or threw: storage failed under it,
 * what waits stays there) is tried again after a backoff, from `baseMs` doubled per failure up to
 * `maxMs`, reset by a pass that finishes. `run()` never rejects: the SDK's own promises must not
 * reach the app's unhandled-rejection handler.
 */
export class DrainLoop {
  private running: Promise<void> | undefined;
  private again = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private halted = false;

  constructor(
    private readonly pass: () => Promise<boolean>,
    private readonly backoff: { baseMs: number; maxMs: number },
  ) {}

  /** Whether `stop()` was called: a pass ends early then. */
  get stopped(): boolean {
    return this.halted;
  }

  /** Resolves when everything is done or a failure stopped the pass (a retry is then due). */
  run(): Promise<void> {
    if (this.halted) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          if (!(await this.pass())) return this.scheduleRetry();
        } while (this.again);
        this.failures = 0;
      } catch {
        this.scheduleRetry();
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** No more passes or retries (the SDK shut down); what waits stays in storage. */
  stop(): void {
    this.halted = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  private scheduleRetry(): void {
    if (this.halted || this.retryTimer) return;
    const delay = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** this.failures++);
    this.retryTimer = unrefTimer(
      setTimeout(() => {
        this.retryTimer = undefined;
        void this.run();
      }, delay),
    );
  }
}
