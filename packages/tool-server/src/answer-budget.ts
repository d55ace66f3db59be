import type { Metrics } from '@svc/metrics';
import { UserInputError } from '@svc/tool-kit';

// Why a budget of answer bytes: a backend answer is held three times over while a call finishes
// (its text, the parsed object, the validated copy) until the audit record is committed and the
// result is written. Under a flood of large answers (1.6 MB each, analytics.cohorts over a year)
// the gateway's 128 MB heap filled up and the process died, taking every tenant's calls with it.
// Large answers now wait for bytes before their body is read: unread, they stay in the backend's
// socket, and the backend's own scheduler holds that project's slot meanwhile (backpressure to the
// project that caused it). Small answers, which every point lookup is, never wait.

export interface AnswerBudgetOptions {
  /**
   * Bytes of large answers held at once, across all calls; also the largest answer accepted (a
   * larger one is refused with a clear error rather than read: at about five times its size in
   * heap while it is handled, it would not fit).
   */
  totalBytes: number;
  /** Answers up to this size are not counted (a lookup never waits behind a flood). */
  smallBytes: number;
  /** The share of `totalBytes` one project may hold while others wait (0-1]. */
  projectShare: number;
  /**
   * Large answers handled at once, whatever their size: each costs the event loop tens of ms of
   * parsing, validating and serializing, and a lookup's few turns wait behind all of them.
   */
  maxLarge: number;
}

export const DEFAULT_ANSWER_BUDGET: AnswerBudgetOptions = {
  totalBytes: 8 * 1024 * 1024,
  smallBytes: 256 * 1024,
  projectShare: 0.5,
  maxLarge: 2,
};

interface Waiter {
  project: string;
  bytes: number;
  seq: number;
  grant: () => void;
  fail: (err: unknown) => void;
}

/** A held reservation: released exactly once, when the call that read the answer is over. */
export type Release = () => void;

const NOTHING: Release = () => {};
/** What an answer without a Content-Length is counted as (our backends always send one). */
const UNKNOWN_LENGTH_BYTES = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export class AnswerBudget {
  readonly #options: AnswerBudgetOptions;
  #held = 0;
  #count = 0;
  readonly #heldBy = new Map<string, number>();
  #waiters: Waiter[] = [];
  #seq = 0;
  readonly #heldGauge;
  readonly #waitingGauge;
  readonly #waits;

  constructor(options: AnswerBudgetOptions, metrics: Metrics) {
    if (!(options.totalBytes > 0) || !(options.projectShare > 0 && options.projectShare <= 1)) {
      throw new Error('answer budget: totalBytes must be positive and projectShare in (0, 1]');
    }
    this.#options = options;
    this.#heldGauge = metrics.gauge(
      'answer_budget_bytes_held',
      'Bytes of large backend answers being handled',
      [],
    );
    this.#waitingGauge = metrics.gauge('answer_budget_waiting', 'Large answers waiting to be read', []);
    this.#waits = metrics.histogram(
      'answer_budget_wait_seconds',
      'Time a large answer waited to be read',
      [],
    );
  }

  /**
   * Waits until an answer of `bytes` (undefined: not announced) may be read for `project`. The
   * project holding least goes first; among equals, arrival order. Rejects an answer larger than
   * the budget (UserInputError: the caller can narrow the query), and when `signal` aborts (the
   * caller left): the answer is then never read.
   */
  async reserve(project: string, bytes: number | undefined, signal?: AbortSignal): Promise<Release> {
    if (bytes !== undefined && bytes <= this.#options.smallBytes) return NOTHING;
    if (bytes !== undefined && bytes > this.#options.totalBytes) {
      throw new UserInputError(
        `The result is ${mb(bytes)}, more than the ${mb(this.#options.totalBytes)} one call may return; ` +
          'narrow the query (fewer days, a lower limit or max_day, a filter).',
        { details: { limit: 'answer_bytes', limit_bytes: this.#options.totalBytes, answer_bytes: bytes } },
      );
    }
    const size = Math.min(bytes ?? UNKNOWN_LENGTH_BYTES, this.#options.totalBytes);
    if (this.#waiters.length === 0 && this.#fits(project, size)) return this.#take(project, size);
    signal?.throwIfAborted();
    const started = performance.now();
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        project,
        bytes: size,
        seq: this.#seq++,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#waits.observe({}, (performance.now() - started) / 1000);
          resolve(this.#take(project, size));
        },
        fail: reject,
      };
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        this.#waitingGauge.set({}, this.#waiters.length);
        reject(signal?.reason);
        this.#grantWaiting();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#waitingGauge.set({}, this.#waiters.length);
    });
  }

  /** Bytes held now (tests, metrics). */
  get heldBytes(): number {
    return this.#held;
  }

  /**
   * Whether `size` more bytes may be held for `project` now. Alone, a project may use the whole
   * budget; while another project holds or waits for bytes, only its share (but always one answer).
   */
  #fits(project: string, size: number): boolean {
    if (this.#held === 0) return true;
    if (this.#count >= this.#options.maxLarge) return false;
    if (this.#held + size > this.#options.totalBytes) return false;
    const mine = this.#heldBy.get(project) ?? 0;
    if (mine === 0) return true;
    const contended =
      this.#waiters.some((w) => w.project !== project) || [...this.#heldBy.keys()].some((p) => p !== project);
    return !contended || mine + size <= this.#options.totalBytes * this.#options.projectShare;
  }

  #take(project: string, size: number): Release {
    this.#held += size;
    this.#count += 1;
    this.#heldBy.set(project, (this.#heldBy.get(project) ?? 0) + size);
    this.#heldGauge.set({}, this.#held);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= size;
      this.#count -= 1;
      const left = (this.#heldBy.get(project) ?? 0) - size;
      if (left > 0) this.#heldBy.set(project, left);
      else this.#heldBy.delete(project);
      this.#heldGauge.set({}, this.#held);
      this.#grantWaiting();
    };
  }

  /** Grants waiters in turn: the project holding least first, then arrival; stops at the first that does not fit. */
  #grantWaiting(): void {
    while (this.#waiters.length > 0) {
      const next = this.#waiters.reduce((best, w) => {
        const a = this.#heldBy.get(w.project) ?? 0;
        const b = this.#heldBy.get(best.project) ?? 0;
        return a < b || (a === b && w.seq < best.seq) ? w : best;
      });
      if (!this.#fits(next.project, next.bytes)) return;
      this.#waiters = this.#waiters.filter((w) => w !== next);
      this.#waitingGauge.set({}, this.#waiters.length);
      next.grant();
    }
  }
}
