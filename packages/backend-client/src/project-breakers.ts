import type { BreakerOptions } from './breaker-options';

// One project's failures must not open the breaker for every tenant: a project whose queries time
// out or fail (its own data, its own burst) is shed alone. Each project seen recently has a
// rolling window of its calls and failures; at the same thresholds as the backend's breaker it
// opens for that project only: its calls fail fast (503, Retry-After) until the reset time, then
// one trial call decides (success closes it, failure opens it again). The backend's own breaker
// counts what says the backend itself is down (it cannot be reached), and opens as well when most
// recently active projects are shed at once (the backend fails for everyone, whatever the cause).
//
// Plain arithmetic, no timer per project (opossum keeps an interval per breaker): the window is
// 10 buckets, rotated when a project is next touched. Projects that are closed and made no call in
// the last window are dropped, so memory follows the projects active in the last window.

const BUCKETS = 10;
/** Tracked projects at most; past it, the quiet closed ones are dropped first. */
const MAX_TRACKED = 10_000;
/** The backend's breaker opens once at least this many projects are shed, and half of those active. */
const MIN_SHED_FOR_BACKEND = 3;

interface Window {
  /** Start of the bucket `calls[head]` counts in. */
  headAt: number;
  head: number;
  calls: number[];
  failures: number[];
  /** When the project's breaker opened; undefined while closed. */
  openedAt: number | undefined;
  /** A half-open trial is in flight: other calls still fail fast. */
  trial: boolean;
}

export type Admission = { admitted: true; trial: boolean } | { admitted: false; retryAfterSeconds: number };

export class ProjectBreakers {
  readonly #options: BreakerOptions;
  readonly #now: () => number;
  readonly #bucketMs: number;
  readonly #windows = new Map<string, Window>();
  readonly #onChange: () => void;
  #sweptAt: number;

  /** `onChange`: a project's breaker opened or closed (the gauge of open ones, the backend's rule). */
  constructor(options: BreakerOptions, now: () => number, onChange: () => void) {
    this.#options = options;
    this.#now = now;
    this.#bucketMs = Math.max(1, options.rollingCountTimeoutMs / BUCKETS);
    this.#onChange = onChange;
    this.#sweptAt = now();
  }

  /** Whether a call of `project` may go to the backend now. */
  admit(project: string): Admission {
    const w = this.#windows.get(project);
    if (w?.openedAt === undefined) return { admitted: true, trial: false };
    const reopensAt = w.openedAt + this.#options.resetTimeoutMs;
    const now = this.#now();
    if (now < reopensAt || w.trial) {
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((reopensAt - now) / 1000)) };
    }
    w.trial = true;
    return { admitted: true, trial: true };
  }

  /**
   * The outcome of an admitted call: 'failure' (the backend failed it), 'success' (answered,
   * caller errors included), or 'none' (it never reached the backend, or its caller left): a
   * trial's place is given back then, and the next call is the trial.
   */
  record(project: string, outcome: 'success' | 'failure' | 'none', trial: boolean): void {
    const now = this.#now();
    if (now - this.#sweptAt >= this.#options.rollingCountTimeoutMs) this.#sweep(now);
    let w = this.#windows.get(project);
    if (trial && w) {
      w.trial = false;
      if (outcome === 'none') return;
      if (outcome === 'failure') w.openedAt = now;
      else this.#close(w);
      this.#onChange();
      return;
    }
    if (outcome === 'none') return;
    w ??= this.#track(project, now);
    this.#rotate(w, now);
    w.calls[w.head]! += 1;
    if (outcome === 'failure') w.failures[w.head]! += 1;
    if (w.openedAt !== undefined) return;
    const calls = sum(w.calls);
    const failures = sum(w.failures);
    if (
      calls >= this.#options.volumeThreshold &&
      (failures / calls) * 100 >= this.#options.errorThresholdPercentage
    ) {
      w.openedAt = now;
      this.#onChange();
    }
  }

  /** Projects shed now (open and not yet due for a trial). */
  openCount(): number {
    const now = this.#now();
    let n = 0;
    for (const w of this.#windows.values()) {
      if (w.openedAt !== undefined && now < w.openedAt + this.#options.resetTimeoutMs) n++;
    }
    return n;
  }

  /**
   * Whether the backend itself looks down: at least a few projects shed, and at least half of the
   * projects that called it in the last window. One project alone never answers yes.
   */
  mostAreShed(): boolean {
    const now = this.#now();
    let active = 0;
    let shed = 0;
    for (const w of this.#windows.values()) {
      this.#rotate(w, now);
      const isShed = w.openedAt !== undefined && now < w.openedAt + this.#options.resetTimeoutMs;
      if (isShed) shed++;
      if (isShed || sum(w.calls) > 0) active++;
    }
    return shed >= MIN_SHED_FOR_BACKEND && shed * 2 >= active;
  }

  /** Projects tracked now (tests: memory follows the active projects). */
  get size(): number {
    return this.#windows.size;
  }

  #track(project: string, now: number): Window {
    if (this.#windows.size >= MAX_TRACKED) this.#dropQuiet(now);
    const w: Window = {
      headAt: now,
      head: 0,
      calls: new Array(BUCKETS).fill(0),
      failures: new Array(BUCKETS).fill(0),
      openedAt: undefined,
      trial: false,
    };
    this.#windows.set(project, w);
    return w;
  }

  /** Drops the projects that are closed and made no call in the last window. */
  #sweep(now: number): void {
    this.#sweptAt = now;
    for (const [project, w] of this.#windows) {
      this.#rotate(w, now);
      if (w.openedAt === undefined && !w.trial && sum(w.calls) === 0) this.#windows.delete(project);
    }
  }

  /** Past the bound: the quiet closed projects go, then other closed ones (open ones are kept). */
  #dropQuiet(now: number): void {
    this.#sweep(now);
    for (const [project, w] of this.#windows) {
      if (this.#windows.size < MAX_TRACKED) return;
      if (w.openedAt === undefined && !w.trial) this.#windows.delete(project);
    }
  }

  #close(w: Window): void {
    w.openedAt = undefined;
    w.calls.fill(0);
    w.failures.fill(0);
  }

  /** Moves the window's head to `now`, emptying the buckets it passes. */
  #rotate(w: Window, now: number): void {
    const steps = Math.floor((now - w.headAt) / this.#bucketMs);
    if (steps <= 0) return;
    for (let i = 0; i < Math.min(steps, BUCKETS); i++) {
      w.head = (w.head + 1) % BUCKETS;
      w.calls[w.head] = 0;
      w.failures[w.head] = 0;
    }
    w.headAt += steps * this.#bucketMs;
  }
}

function sum(values: number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
