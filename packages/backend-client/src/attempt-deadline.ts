type AbortListener = () => void;

/**
 * The end of one attempt: the caller leaving, or the attempt's deadline passing, whichever comes
 * first. It cancels the request (and the backend's query behind it, which sees the connection
 * close). The clock stops while the answer waits for the gateway's own answer budget: that wait is
 * the gateway's, bounded there, and must not be charged to the backend (a timeout counts against
 * the backend's breaker; a wait for budget says nothing of its health).
 *
 * It is itself the abort signal handed to undici (which takes any object with `aborted`, `reason`
 * and `addEventListener`/`removeEventListener`): an AbortController per attempt, on top of the
 * caller's signal, is a noticeable part of a small call's CPU. A real AbortSignal is made only
 * when something asks for one (`signal`: a large answer waiting for the budget).
 */
export class AttemptDeadline {
  aborted = false;
  reason: unknown = undefined;
  readonly #caller: AbortSignal | undefined;
  /** undici adds one listener; more (none today) go to `#more`. No array made per attempt. */
  #listener: AbortListener | undefined;
  #more: AbortListener[] | undefined;
  #controller: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;
  #remainingMs: number;
  #armedAt = 0;
  #timedOut = false;

  constructor(ms: number, caller: AbortSignal | undefined) {
    this.#remainingMs = ms;
    this.#caller = caller;
    if (caller?.aborted) {
      this.#abort(caller.reason);
      return;
    }
    // The deadline itself listens (handleEvent): no closure made per attempt.
    caller?.addEventListener('abort', this, { once: true });
    this.#arm();
  }

  /** The attempt as a real AbortSignal (made on first use), aborted when the attempt is. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** The deadline passed (as opposed to the caller leaving). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  addEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.#listener === undefined) this.#listener = listener;
    else this.#more = [...(this.#more ?? []), listener];
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.#listener === listener) this.#listener = undefined;
    else if (this.#more) this.#more = this.#more.filter((l) => l !== listener);
  }

  /** The caller's signal aborted (this object is its listener). */
  handleEvent(): void {
    this.#abort(this.#caller?.reason);
  }

  /** Stops the clock (the answer waits for budget); `resume` starts it again with what was left. */
  pause(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#remainingMs = Math.max(0, this.#remainingMs - (performance.now() - this.#armedAt));
  }

  resume(): void {
    if (this.#timer === undefined && !this.aborted) this.#arm();
  }

  /** The attempt is over: no timer, no listener left behind. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#caller?.removeEventListener('abort', this);
    this.#listener = undefined;
    this.#more = undefined;
  }

  #arm(): void {
    this.#armedAt = performance.now();
    this.#timer = setTimeout(onDeadline, this.#remainingMs, this);
    this.#timer.unref();
  }

  /** The deadline passed. */
  expire(): void {
    this.#timer = undefined;
    this.#timedOut = true;
    this.#abort(new Error('attempt deadline passed'));
  }

  #abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const listeners = [this.#listener, ...(this.#more ?? [])];
    this.#listener = undefined;
    this.#more = undefined;
    for (const listener of listeners) listener?.();
    this.#controller?.abort(reason);
  }
}

/** The timer's callback, one function for every attempt (the deadline rides as its argument). */
function onDeadline(deadline: AttemptDeadline): void {
  deadline.expire();
}
