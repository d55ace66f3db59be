import { BackendUnavailableError, RateLimitedError, UserInputError } from '@svc/errors';
import type { Metrics } from '@svc/metrics';

// Why a budget of answer bytes: a backend answer is held three times over while a call finishes
// (its text, the parsed object, the validated copy) until the audit record is committed and the
// result is written. Under a flood of large answers (1.6 MB each, analytics.cohorts over a year)
// the gateway's 128 MB heap filled up and the process died, taking every tenant's calls with it.
// Large answers now wait for bytes before their body is read: unread, they stay in the backend's
// socket, and the backend's own scheduler holds that project's slot meanwhile (backpressure to the
// project that caused it). Small answers, which every point lookup is, never wait.
//
// Nothing here is held forever and no tenant can take it all:
// - a project, and an org (all its projects together), may hold only its share of the bytes and of
//   the large answers handled at once (one answer always fits a tenant holding nothing), so another
//   tenant's first large answer finds room however busy one tenant keeps the gateway;
// - answers waiting to be read are bounded per project, per org and in all (each keeps a backend
//   socket busy with its unread body): over a bound, the answer is refused at once (429 for the
//   tenant's own bound, 503 for the instance's), its body discarded;
// - a waiting answer gives up after `maxWaitMs` (503, Retry-After), or when its caller's signal
//   aborts, whichever comes first; a grant, a deadline and an abort settle a waiter exactly once.
// Giving a granted reservation back is the caller's (the executor's call holdings, which release a
// grant that arrives after its call ended at once).

export interface AnswerBudgetOptions {
  /**
   * Bytes of large answers held at once, across all calls; also the largest answer accepted (a
   * larger one is refused with a clear error rather than read: at about five times its size in
   * heap while it is handled, it would not fit).
   */
  totalBytes: number;
  /** Answers up to this size are not counted (a lookup never waits behind a flood). */
  smallBytes: number;
  /** The share of `totalBytes` and of `maxLarge` one project may hold (0-1]. */
  projectShare: number;
  /** The share of `totalBytes` and of `maxLarge` one org, all its projects together, may hold (0-1]. */
  orgShare: number;
  /**
   * Large answers handled at once, whatever their size: each costs the event loop parsing,
   * validating and serializing, and a lookup's few turns wait behind all of them.
   */
  maxLarge: number;
  /** Large answers waiting to be read, in all: each keeps a backend connection busy. */
  maxWaiting: number;
  /** Large answers of one project waiting to be read. */
  maxWaitingPerProject: number;
  /** Large answers of one org, all its projects together, waiting to be read. */
  maxWaitingPerOrg: number;
  /** How long a large answer waits to be read before it is refused (503, retry shortly). */
  maxWaitMs: number;
}

export const DEFAULT_ANSWER_BUDGET: AnswerBudgetOptions = {
  totalBytes: 8 * 1024 * 1024,
  smallBytes: 256 * 1024,
  projectShare: 0.5,
  orgShare: 0.75,
  maxLarge: 4,
  maxWaiting: 32,
  maxWaitingPerProject: 8,
  maxWaitingPerOrg: 16,
  maxWaitMs: 5_000,
};

/** Whose answer it is: the org is null for a caller without one (stdio), which then counts as its project. */
export interface BudgetTenant {
  project: string;
  org: string | null;
}

/** Starts a timer; the answer cancels it. Injected so tests can fire deadlines when they choose. */
export type StartTimer = (fire: () => void, ms: number) => () => void;

const realTimer: StartTimer = (fire, ms) => {
  const timer = setTimeout(fire, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** A held reservation: released exactly once (a second call does nothing). */
export type Release = () => void;

interface Waiter {
  project: string;
  org: string;
  bytes: number;
  seq: number;
  /** Grants, times out or aborts the waiter: the first of them wins, the others do nothing. */
  settle: (outcome: { release: Release } | { error: unknown }) => void;
}

/** How many of a tenant's reservations and bytes are held, and how many of its answers wait. */
interface Tally {
  bytes: number;
  count: number;
  waiting: number;
}

const NOTHING: Release = () => {};
/** What an answer without a Content-Length is counted as (our backends always send one). */
const UNKNOWN_LENGTH_BYTES = 1024 * 1024;
/** A waiting answer refused is asked to come back this soon: reservations last milliseconds. */
const RETRY_AFTER_SECONDS = 1;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The gateway is handling as many large answers as it may: retry shortly (503, not the backend's fault). */
export class AnswerBudgetBusyError extends BackendUnavailableError {
  constructor(reason: string) {
    super('gateway', RETRY_AFTER_SECONDS);
    this.message = `The gateway is busy with other large answers (${reason}); retry shortly.`;
  }
}

export class AnswerBudget {
  readonly #options: AnswerBudgetOptions;
  readonly #projectBytes: number;
  readonly #orgBytes: number;
  readonly #projectLarge: number;
  readonly #orgLarge: number;
  #held = 0;
  #count = 0;
  readonly #projects = new Map<string, Tally>();
  readonly #orgs = new Map<string, Tally>();
  #waiters: Waiter[] = [];
  #seq = 0;
  readonly #heldGauge;
  readonly #countGauge;
  readonly #waitingGauge;
  readonly #waits;
  readonly #refusals;

  readonly #startTimer: StartTimer;

  constructor(options: AnswerBudgetOptions, metrics: Metrics, startTimer: StartTimer = realTimer) {
    this.#startTimer = startTimer;
    const share = (v: number) => v > 0 && v <= 1;
    if (!(options.totalBytes > 0) || !share(options.projectShare) || !share(options.orgShare)) {
      throw new Error('answer budget: totalBytes must be positive and the shares in (0, 1]');
    }
    if (!(options.maxLarge >= 1 && options.maxWaiting >= 1 && options.maxWaitMs > 0)) {
      throw new Error('answer budget: maxLarge, maxWaiting and maxWaitMs must be positive');
    }
    this.#options = options;
    this.#projectBytes = options.totalBytes * options.projectShare;
    this.#orgBytes = options.totalBytes * options.orgShare;
    this.#projectLarge = Math.max(1, Math.floor(options.maxLarge * options.projectShare));
    this.#orgLarge = Math.max(1, Math.floor(options.maxLarge * options.orgShare));
    this.#heldGauge = metrics
      .holding('answer_budget_bytes_held', 'Bytes of large backend answers being handled', [])
      .bind({});
    this.#countGauge = metrics
      .holding('answer_budget_answers_held', 'Large backend answers being handled', [])
      .bind({});
    this.#waitingGauge = metrics
      .holding('answer_budget_waiting', 'Large answers waiting to be read', [])
      .bind({});
    this.#waits = metrics.histogram(
      'answer_budget_wait_seconds',
      'Time a large answer waited to be read',
      [],
    );
    this.#refusals = metrics.counter(
      'answer_budget_refusals_total',
      'Large answers refused unread, by reason',
      ['reason'],
    );
    this.#report();
  }

  /**
   * Waits until an answer of `bytes` (undefined: not announced) may be read for `tenant`. The
   * project holding least goes first; among equals, arrival order. Rejects an answer larger than
   * the budget (UserInputError: the caller can narrow the query), an answer over its tenant's
   * waiting bound (RateLimitedError) or the instance's, or one that waited `maxWaitMs`
   * (AnswerBudgetBusyError), and when `signal` aborts (the caller left): the answer is then never read.
   */
  async reserve(tenant: BudgetTenant, bytes: number | undefined, signal?: AbortSignal): Promise<Release> {
    if (bytes !== undefined && bytes <= this.#options.smallBytes) return NOTHING;
    if (bytes !== undefined && bytes > this.#options.totalBytes) {
      this.#refusals.inc({ reason: 'too_large' });
      throw new UserInputError(
        `The result is ${mb(bytes)}, more than the ${mb(this.#options.totalBytes)} one call may return; ` +
          'narrow the query (fewer days, a lower limit or max_day, a filter).',
        { details: { limit: 'answer_bytes', limit_bytes: this.#options.totalBytes, answer_bytes: bytes } },
      );
    }
    signal?.throwIfAborted();
    const project = tenant.project;
    const org = tenant.org ?? `project:${project}`;
    const size = Math.min(bytes ?? UNKNOWN_LENGTH_BYTES, this.#options.totalBytes);
    if (this.#waiters.length === 0 && this.#blocker(project, org, size) === undefined) {
      return this.#take(project, org, size);
    }
    this.#admitWaiter(project, org);
    const started = performance.now();
    return new Promise<Release>((resolve, reject) => {
      let cancelTimer = () => {};
      const onAbort = () => waiter.settle({ error: signal?.reason });
      const waiter: Waiter = {
        project,
        org,
        bytes: size,
        seq: this.#seq++,
        settle: (outcome) => {
          if (!this.#waiters.includes(waiter)) return;
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          this.#tally(this.#projects, project).waiting--;
          this.#tally(this.#orgs, org).waiting--;
          this.#forget(project, org);
          cancelTimer();
          signal?.removeEventListener('abort', onAbort);
          this.#waits.observe({}, (performance.now() - started) / 1000);
          this.#report();
          if ('release' in outcome) resolve(outcome.release);
          else {
            reject(outcome.error);
            // Whoever was behind the one that left may fit now.
            this.#grantWaiting();
          }
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      cancelTimer = this.#startTimer(() => {
        if (!this.#waiters.includes(waiter)) return;
        this.#refusals.inc({ reason: 'waited_too_long' });
        waiter.settle({
          error: new AnswerBudgetBusyError(`waited ${this.#options.maxWaitMs / 1000} s to be read`),
        });
      }, this.#options.maxWaitMs);
      this.#waiters.push(waiter);
      this.#tally(this.#projects, project).waiting++;
      this.#tally(this.#orgs, org).waiting++;
      this.#report();
      // Those ahead may be waiting for their own tenant's release only: this one may fit now.
      this.#grantWaiting();
    });
  }

  /** Whether an answer of `bytes` is counted (and may wait or be refused); small ones never are. */
  counts(bytes: number | undefined): boolean {
    return bytes === undefined || bytes > this.#options.smallBytes;
  }

  /** Bytes held now (tests, metrics). */
  get heldBytes(): number {
    return this.#held;
  }

  /** Answers waiting to be read now (tests, metrics). */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Refuses one more waiting answer over the tenant's bound or the instance's. */
  #admitWaiter(project: string, org: string): void {
    const refuse = (reason: string, error: Error): never => {
      this.#refusals.inc({ reason });
      throw error;
    };
    if ((this.#projects.get(project)?.waiting ?? 0) >= this.#options.maxWaitingPerProject) {
      refuse(
        'project_waiting',
        new RateLimitedError(
          `Too many large answers of this project are waiting to be read (${this.#options.maxWaitingPerProject}); ` +
            'retry when one has finished, or narrow the query.',
          RETRY_AFTER_SECONDS,
        ),
      );
    }
    if ((this.#orgs.get(org)?.waiting ?? 0) >= this.#options.maxWaitingPerOrg) {
      refuse(
        'org_waiting',
        new RateLimitedError(
          `Too many large answers of this organization are waiting to be read (${this.#options.maxWaitingPerOrg}); ` +
            'retry when one has finished.',
          RETRY_AFTER_SECONDS,
        ),
      );
    }
    if (this.#waiters.length >= this.#options.maxWaiting) {
      refuse(
        'instance_waiting',
        new AnswerBudgetBusyError(`${this.#options.maxWaiting} answers are waiting`),
      );
    }
  }

  /**
   * What keeps `size` more bytes of `project` (of `org`) from being held now: its own tenant's
   * share ('tenant': others may still go first), or the instance's total ('total'); undefined: it fits.
   * A tenant holding nothing may always hold one answer, if the instance has room for it.
   */
  #blocker(project: string, org: string, size: number): 'tenant' | 'total' | undefined {
    if (
      this.#held > 0 &&
      (this.#count >= this.#options.maxLarge || this.#held + size > this.#options.totalBytes)
    ) {
      return 'total';
    }
    const withinShare = (tally: Tally | undefined, maxBytes: number, maxLarge: number) =>
      tally === undefined || tally.count === 0 || (tally.bytes + size <= maxBytes && tally.count < maxLarge);
    if (!withinShare(this.#projects.get(project), this.#projectBytes, this.#projectLarge)) return 'tenant';
    if (!withinShare(this.#orgs.get(org), this.#orgBytes, this.#orgLarge)) return 'tenant';
    return undefined;
  }

  #tally(map: Map<string, Tally>, key: string): Tally {
    let tally = map.get(key);
    if (!tally) {
      tally = { bytes: 0, count: 0, waiting: 0 };
      map.set(key, tally);
    }
    return tally;
  }

  /** Drops the tallies of a tenant that holds and waits for nothing (the maps stay as small as the load). */
  #forget(project: string, org: string): void {
    const p = this.#projects.get(project);
    if (p && p.count === 0 && p.waiting === 0) this.#projects.delete(project);
    const o = this.#orgs.get(org);
    if (o && o.count === 0 && o.waiting === 0) this.#orgs.delete(org);
  }

  #take(project: string, org: string, size: number): Release {
    this.#held += size;
    this.#count += 1;
    for (const tally of [this.#tally(this.#projects, project), this.#tally(this.#orgs, org)]) {
      tally.bytes += size;
      tally.count += 1;
    }
    this.#report();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= size;
      this.#count -= 1;
      for (const tally of [this.#tally(this.#projects, project), this.#tally(this.#orgs, org)]) {
        tally.bytes -= size;
        tally.count -= 1;
      }
      this.#forget(project, org);
      this.#report();
      this.#grantWaiting();
    };
  }

  /**
   * Grants waiters in turn: the project holding least first, then arrival. One blocked by its own
   * tenant's share is passed over (only its tenant's release frees it); the first blocked by the
   * instance's total stops the round, so a large answer is not starved by smaller ones behind it.
   */
  #grantWaiting(): void {
    const order = [...this.#waiters].sort((a, b) => {
      const ha = this.#projects.get(a.project)?.bytes ?? 0;
      const hb = this.#projects.get(b.project)?.bytes ?? 0;
      return ha - hb || a.seq - b.seq;
    });
    for (const next of order) {
      if (!this.#waiters.includes(next)) continue;
      const blocker = this.#blocker(next.project, next.org, next.bytes);
      if (blocker === 'total') return;
      if (blocker === 'tenant') continue;
      next.settle({ release: this.#take(next.project, next.org, next.bytes) });
    }
  }

  #report(): void {
    this.#heldGauge.set(this.#held);
    this.#countGauge.set(this.#count);
    this.#waitingGauge.set(this.#waiters.length);
  }
}
