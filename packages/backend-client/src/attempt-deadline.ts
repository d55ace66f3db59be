/**
 * The end of one attempt: the caller leaving, or the attempt's deadline passing, whichever comes
 * first; `signal` aborts at either, which cancels the request (and the backend's query behind it,
 * which sees the connection close). The clock stops while the answer waits for the gateway's own
 * answer budget: that wait is the gateway's, bounded there, and must not be charged to the backend
 * (a timeout counts against the backend's breaker; a wait for budget says nothing of its health).
 */
export class AttemptDeadline {
  readonly #controller = new AbortController();
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort = () => this.#controller.abort(this.#caller?.reason);
  #timer: NodeJS.Timeout | undefined;
  #remainingMs: number;
  #armedAt = 0;
  #timedOut = false;

  constructor(ms: number, caller: AbortSignal | undefined) {
    this.#remainingMs = ms;
    this.#caller = caller;
    if (caller?.aborted) this.#controller.abort(caller.reason);
    else caller?.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.#arm();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The deadline passed (as opposed to the caller leaving). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** Stops the clock (the answer waits for budget); `resume` starts it again with what was left. */
  pause(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#remainingMs = Math.max(0, this.#remainingMs - (performance.now() - this.#armedAt));
  }

  resume(): void {
    if (this.#timer === undefined && !this.#controller.signal.aborted) this.#arm();
  }

  /** The attempt is over: no timer, no listener left behind. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#caller?.removeEventListener('abort', this.#onCallerAbort);
  }

  #arm(): void {
    this.#armedAt = performance.now();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timedOut = true;
      this.#controller.abort(new Error('attempt deadline passed'));
    }, this.#remainingMs);
    this.#timer.unref();
  }
}
