import { ServiceError } from '@svc/errors';
import type { Metrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import CircuitBreaker from 'opossum';
import {
  BreakerOpenError,
  isCallerError,
  isUnreachable,
  outcomeForProject,
  ProjectBreakerOpenError,
} from './backend-errors';
import type { BreakerOptions } from './breaker-options';
import { ProjectBreakers } from './project-breakers';
import type { Attempt } from './send-attempt';

/** A breaker's state as the health monitor and the gauges name it. */
export type BreakerState = 'closed' | 'open' | 'half_open';

const BREAKER_STATE_VALUE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

export interface BreakersOptions {
  name: string;
  breaker: BreakerOptions;
  metrics: Metrics;
  logger: Logger;
  /** The attempt the breakers guard. */
  send: (attempt: Attempt) => Promise<unknown>;
  /** A failure opossum made itself, as the error hierarchy has it. */
  transportError: (err: unknown) => ServiceError;
}

export interface Breakers {
  /** One attempt through its project's breaker, then the backend's. */
  fire(attempt: Attempt): Promise<unknown>;
  state(): BreakerState;
  /** Seconds until the breaker lets a trial call through; at least 1. */
  retryAfterSeconds(): number;
  isOpen(): boolean;
  shutdown(): void;
}

/**
 * The backend's opossum breaker and its projects' breakers. The attempt's own deadline
 * (AttemptDeadline) bounds a call, not opossum's timer: opossum's would settle the call while its
 * request and any answer-budget wait went on unseen, and charge the gateway's own waiting to the
 * backend.
 */
export function createBreakers(options: BreakersOptions): Breakers {
  const { name } = options;
  const breakerOptions = options.breaker;
  const breaker = new CircuitBreaker(options.send, {
    name,
    timeout: false,
    volumeThreshold: breakerOptions.volumeThreshold,
    errorThresholdPercentage: breakerOptions.errorThresholdPercentage,
    resetTimeout: breakerOptions.resetTimeoutMs,
    rollingCountTimeout: breakerOptions.rollingCountTimeoutMs,
    // A project's call counts here only when the backend could not be reached at all; its other
    // failures are its project's (projectBreakers), so one tenant cannot open this for all.
    errorFilter: (err: unknown, attempt?: Attempt) =>
      isCallerError(err) || (attempt?.options.project !== undefined && !isUnreachable(err)),
  });
  const openedAt = reportBreakerState(breaker, options);
  const shedding = projectShedding(breaker, options);
  const state = () => stateOf(breaker);
  const retryAfterSeconds = () => {
    if (!breaker.opened) return 1;
    const remaining = openedAt() + breakerOptions.resetTimeoutMs - Date.now();
    return Math.max(1, Math.ceil(remaining / 1000));
  };
  const mapFireError = (err: unknown): ServiceError => {
    if (err instanceof ServiceError) return err;
    if ((err as { code?: string }).code === 'EOPENBREAKER')
      return new BreakerOpenError(name, retryAfterSeconds());
    return options.transportError(err);
  };

  /**
   * One attempt through the breakers (its project's, then the backend's), with opossum's own
   * failures mapped too. The project's breaker hears every outcome of a call it let through, a
   * trial's included, so a trial's place is never kept by a call that ended otherwise.
   */
  async function fire(attempt: Attempt): Promise<unknown> {
    const project = attempt.options.project;
    const admission = project === undefined ? undefined : shedding.projects.admit(project);
    if (admission && !admission.admitted) {
      throw new ProjectBreakerOpenError(name, admission.retryAfterSeconds);
    }
    let outcome: 'success' | 'failure' | 'none' = 'success';
    try {
      return await breaker.fire(attempt);
    } catch (err) {
      const mapped = mapFireError(err);
      outcome = outcomeForProject(mapped);
      throw mapped;
    } finally {
      if (project !== undefined)
        shedding.projects.record(project, outcome, admission?.admitted === true && admission.trial);
    }
  }

  return {
    fire,
    state,
    retryAfterSeconds,
    isOpen: () => breaker.opened,
    shutdown() {
      shedding.stop();
      breaker.shutdown();
    },
  };
}

function stateOf(breaker: CircuitBreaker): BreakerState {
  if (breaker.opened) return 'open';
  if (breaker.halfOpen) return 'half_open';
  return 'closed';
}

/** The breaker's state as a gauge and in the log; returns when it last opened. */
function reportBreakerState(breaker: CircuitBreaker, options: BreakersOptions): () => number {
  const { name, logger } = options;
  const gauge = options.metrics.gauge(
    'backend_breaker_state',
    'Circuit breaker state per backend: 0 closed, 1 half-open, 2 open',
    ['backend'],
  );
  let openedAt = 0;
  const report = () => gauge.set({ backend: name }, BREAKER_STATE_VALUE[stateOf(breaker)]);
  breaker.on('open', () => {
    openedAt = Date.now();
    logger.warn({ backend: name }, 'circuit breaker opened');
    report();
  });
  breaker.on('halfOpen', report);
  breaker.on('close', () => {
    logger.info({ backend: name }, 'circuit breaker closed');
    report();
  });
  report();
  return () => openedAt;
}

/**
 * The projects' breakers (project-breakers.ts), their count as a gauge, and the backend's breaker
 * opened when most active projects are shed at once.
 */
function projectShedding(breaker: CircuitBreaker, options: BreakersOptions) {
  const { name, logger } = options;
  const resetMs = options.breaker.resetTimeoutMs;
  const gauge = options.metrics
    .holding('backend_projects_shed', 'Projects whose calls fail fast after failing (per-project breakers)', [
      'backend',
    ])
    .bind({ backend: name });
  let shedTimer: NodeJS.Timeout | undefined;
  const projects: ProjectBreakers = new ProjectBreakers(options.breaker, Date.now, () => {
    gauge.set(projects.openCount());
    // The gauge falls back when a shed project's reset time passes, called or not.
    clearTimeout(shedTimer);
    if (projects.openCount() > 0) {
      shedTimer = setTimeout(() => gauge.set(projects.openCount()), resetMs);
      shedTimer.unref();
    }
    // Most active projects shed at once: the backend fails for everyone, whatever the cause.
    if (!breaker.opened && projects.mostAreShed()) {
      logger.warn({ backend: name, shed: projects.openCount() }, 'most projects failing: breaker opened');
      breaker.open();
    }
  });
  return { projects, stop: () => clearTimeout(shedTimer) };
}
