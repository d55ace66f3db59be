import { QueryCancelledError } from '@svc/clickhouse';
import { RateLimitedError } from '@svc/errors';
import type { Metrics } from '@svc/metrics';

// Fair sharing of the core between projects (docs/decisions.md, "Fair sharing of the core").
//
// Every tool call waits here for a slot and holds it until its answer is written: its queries,
// and the main-thread work of building and serializing a large answer, which is what a flood of
// heavy calls saturates first. A free slot goes to the waiting project with the fewest calls
// running, among equals the one served longest ago (round-robin), and one project holds at most
// `perProject` slots, so with `perProject < concurrency` another project's next call starts at
// once, and at worst (every slot taken by projects at their limit) after one call of theirs ends.
// A project's own backlog is bounded (`queuedPerProject`) and waits at most until its call's
// deadline; past either, the call is refused with 429 for that project alone. A call whose caller
// left is dropped from the queue, and its running queries are stopped in the engine.
//
// The limit holds while another project is present (has calls running or waiting, or had one end
// within `presenceMs`). A project alone may use every slot but one: an idle core is not kept idle,
// and the slot left free lets the next project's first call start at once. Once that call is in,
// the alone project starts no more than `perProject` new calls until the other has been quiet for
// `presenceMs`.
//
// Each call also gets an engine priority from its project's load while another project is present:
// 1 for a project with nothing else running or waiting, up to 10 for one with a backlog (alone, 1). Its queries take a chDB session in
// that order, and while a query with a lower number runs ClickHouse pauses those with higher ones,
// so a quiet project's lookup is not slowed down by a busy one's heavy queries next to it.

export interface SchedulerLimits {
  /** Calls running at once over all projects. */
  concurrency: number;
  /** Calls of one project running at once. */
  perProject: number;
  /** Calls of one project waiting at most; beyond, 429. */
  queuedPerProject: number;
}

export interface SchedulerOptions {
  /** How long a project that called counts as present after its last call ended. */
  presenceMs?: number;
  now?: () => number;
}

/** Long enough to cover the gap between a client's calls made one after another. */
const DEFAULT_PRESENCE_MS = 2_000;

export interface QueryTicket {
  /** ClickHouse `priority` for the call's queries (1 highest). */
  priority: number;
}

interface Waiter {
  start: () => void;
}

interface ProjectState {
  running: number;
  queue: Waiter[];
  /** When it was last given a slot (a counter), for round-robin among equals. */
  servedAt: number;
}

const LOWEST_PRIORITY = 10;

export class ProjectBusyError extends RateLimitedError {
  constructor(message: string) {
    super(message, 1);
  }
}

export class FairScheduler {
  private readonly projects = new Map<string, ProjectState>();
  /** Projects with calls waiting. */
  private readonly waiting = new Set<string>();
  private served = 0;
  private running = 0;
  private queued = 0;
  private readonly gauges;
  private readonly refusals;
  private readonly waits;

  /** When each project's last call ended, for those that ended within presenceMs. */
  private readonly lastEnded = new Map<string, number>();
  private readonly presenceMs: number;
  private readonly now: () => number;

  constructor(
    readonly limits: SchedulerLimits,
    metrics: Metrics,
    options: SchedulerOptions = {},
  ) {
    this.presenceMs = options.presenceMs ?? DEFAULT_PRESENCE_MS;
    this.now = options.now ?? Date.now;
    if (limits.perProject < 1 || limits.concurrency < 1 || limits.queuedPerProject < 0) {
      throw new Error('scheduler limits must be positive');
    }
    this.gauges = {
      running: metrics.holding('core_calls_running', 'Tool calls holding a slot', []),
      queued: metrics.holding('core_calls_queued', 'Tool calls waiting for a slot', []),
      projects: metrics.holding('core_projects_waiting', 'Projects with calls waiting for a slot', []),
    };
    this.refusals = metrics.counter('core_call_refusals_total', 'Tool calls refused by the scheduler', [
      'reason',
    ]);
    this.waits = metrics.histogram('core_call_wait_seconds', 'Time a tool call waited for its slot', []);
  }

  /**
   * Runs `work` when the project's turn comes. Rejects with ProjectBusyError when the project's
   * queue is full or the deadline (epoch ms) passes while waiting, and with QueryCancelledError
   * when `signal` aborts while waiting.
   */
  run<T>(
    projectId: string,
    deadline: number,
    signal: AbortSignal | undefined,
    work: (ticket: QueryTicket) => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(new QueryCancelledError());
    const project = this.stateOf(projectId);
    if (project.queue.length >= this.limits.queuedPerProject && !this.canStartNow(projectId, project)) {
      this.refusals.inc({ reason: 'queue_full' });
      this.forgetIfIdle(projectId, project);
      return Promise.reject(
        new ProjectBusyError(
          `Too many calls of this project at once (${project.running} running, ${project.queue.length} waiting); retry in a moment.`,
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const enqueuedAt = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const leave = () => {
        const at = project.queue.indexOf(waiter);
        if (at === -1) return false;
        project.queue.splice(at, 1);
        this.queued -= 1;
        if (project.queue.length === 0) this.waiting.delete(projectId);
        this.forgetIfIdle(projectId, project);
        this.report();
        return true;
      };
      const onAbort = () => {
        if (leave()) {
          clearTimeout(timer);
          reject(new QueryCancelledError());
        }
      };
      const waiter: Waiter = {
        start: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.waits.observe({}, (Date.now() - enqueuedAt) / 1000);
          // Load as it stands when this query starts: the others of its project, running or
          // waiting; it lowers the priority only while there is another project to yield to.
          const load = this.othersPresent(projectId) ? project.running + project.queue.length : 0;
          project.running += 1;
          this.running += 1;
          this.report();
          work({ priority: Math.min(LOWEST_PRIORITY, 1 + load) })
            .then(resolve, reject)
            .finally(() => {
              project.running -= 1;
              this.running -= 1;
              this.lastEnded.set(projectId, this.now());
              this.forgetIfIdle(projectId, project);
              this.dispatch();
            });
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const wait = deadline - Date.now();
      timer = setTimeout(
        () => {
          if (leave()) {
            signal?.removeEventListener('abort', onAbort);
            this.refusals.inc({ reason: 'deadline' });
            reject(
              new ProjectBusyError(
                'This project has more calls waiting than can run before this one would time out; retry in a moment.',
              ),
            );
          }
        },
        Math.max(0, wait),
      );
      // A waiting query is not a reason to keep the process alive.
      timer.unref();
      project.queue.push(waiter);
      this.queued += 1;
      this.waiting.add(projectId);
      this.dispatch();
    });
  }

  /** Calls running and waiting now (for tests and the health answer). */
  snapshot(): { running: number; queued: number } {
    return { running: this.running, queued: this.queued };
  }

  private canStartNow(projectId: string, project: ProjectState): boolean {
    return this.running < this.limits.concurrency && project.running < this.limitOf(projectId);
  }

  /** Calls the project may run: perProject while another project is present, else all slots but one. */
  private limitOf(projectId: string): number {
    if (this.othersPresent(projectId)) return this.limits.perProject;
    return Math.max(this.limits.perProject, this.limits.concurrency - 1);
  }

  private othersPresent(projectId: string): boolean {
    for (const id of this.projects.keys()) if (id !== projectId) return true;
    const since = this.now() - this.presenceMs;
    for (const [id, ended] of this.lastEnded) {
      if (ended < since) this.lastEnded.delete(id);
      else if (id !== projectId) return true;
    }
    return false;
  }

  private dispatch(): void {
    while (this.running < this.limits.concurrency) {
      let next: { id: string; state: ProjectState } | undefined;
      for (const id of this.waiting) {
        const state = this.projects.get(id)!;
        if (state.running >= this.limitOf(id)) continue;
        if (
          !next ||
          state.running < next.state.running ||
          (state.running === next.state.running && state.servedAt < next.state.servedAt)
        ) {
          next = { id, state };
        }
      }
      if (!next) break;
      const waiter = next.state.queue.shift()!;
      this.queued -= 1;
      if (next.state.queue.length === 0) this.waiting.delete(next.id);
      this.served += 1;
      next.state.servedAt = this.served;
      waiter.start();
    }
    this.report();
  }

  private stateOf(projectId: string): ProjectState {
    let state = this.projects.get(projectId);
    if (!state) {
      state = { running: 0, queue: [], servedAt: 0 };
      this.projects.set(projectId, state);
    }
    return state;
  }

  private forgetIfIdle(projectId: string, project: ProjectState): void {
    if (project.running === 0 && project.queue.length === 0) this.projects.delete(projectId);
  }

  private report(): void {
    this.gauges.running.set({}, this.running);
    this.gauges.queued.set({}, this.queued);
    this.gauges.projects.set({}, this.waiting.size);
  }
}

/**
 * A quarter of the slots per project: one heavy call at a time per project on the embedded default
 * of 4 sessions (a half let one project's flood slow the others' calls much more; `pnpm bench`'s
 * "fairness" suite measures it), 4 of 16 on a server; a busy project always leaves the others free slots.
 */
export function defaultPerProject(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 4));
}
