import type { Release } from './answer-budget';

/**
 * What one call holds (reservations of answer bytes), given back when the call ends. A reservation
 * granted after that (its wait outlived the call: a deadline, a timeout, a client gone) is given
 * back the moment it arrives, so nothing outlives its call whatever the order of events. `signal`
 * aborts when the call ends: a wait still queued for the call is dropped then, not granted later.
 */
export class CallHoldings {
  #releases: Release[] = [];
  #ended = false;
  #controller: AbortController | undefined;

  /** Aborts when the call has ended; made on first use (most calls hold nothing). */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#ended) this.#controller.abort(new Error('the call has ended'));
    return this.#controller.signal;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Keeps `release` until the call ends; a call already over gives it back at once. */
  add(release: Release): void {
    if (this.#ended) release();
    else this.#releases.push(release);
  }

  /** The call is over: everything held is given back, and anything granted later on arrival. */
  releaseAll(): void {
    this.#ended = true;
    this.#controller?.abort(new Error('the call has ended'));
    const releases = this.#releases;
    this.#releases = [];
    for (const release of releases) release();
  }
}
