import type { BreakerOptions } from './breaker-options';
import { ProjectBreakers } from './project-breakers';

const OPTIONS: BreakerOptions = {
  volumeThreshold: 4,
  errorThresholdPercentage: 50,
  resetTimeoutMs: 10_000,
  rollingCountTimeoutMs: 10_000,
};

function breakers() {
  let now = 1_000_000;
  let changes = 0;
  const b = new ProjectBreakers(
    OPTIONS,
    () => now,
    () => changes++,
  );
  return {
    b,
    advance: (ms: number) => {
      now += ms;
    },
    changes: () => changes,
  };
}

const fail = (b: ProjectBreakers, project: string, n: number) => {
  for (let i = 0; i < n; i++) b.record(project, 'failure', false);
};

describe('ProjectBreakers', () => {
  it('opens for a project at the thresholds, and only for it', () => {
    const { b, changes } = breakers();
    fail(b, 'a', 3);
    expect(b.admit('a')).toEqual({ admitted: true, trial: false });
    fail(b, 'a', 1);
    expect(b.admit('a')).toEqual({ admitted: false, retryAfterSeconds: 10 });
    expect(b.admit('b')).toEqual({ admitted: true, trial: false });
    expect(b.openCount()).toBe(1);
    expect(changes()).toBe(1);
  });

  it('needs the error rate, not only the volume: successes keep it closed', () => {
    const { b } = breakers();
    for (let i = 0; i < 10; i++) b.record('a', 'success', false);
    fail(b, 'a', 9);
    expect(b.admit('a').admitted).toBe(true);
  });

  it('forgets failures older than the rolling window', () => {
    const { b, advance } = breakers();
    fail(b, 'a', 3);
    advance(OPTIONS.rollingCountTimeoutMs + 1);
    fail(b, 'a', 1);
    expect(b.admit('a').admitted).toBe(true);
  });

  it('lets one trial through after the reset time: success closes, failure reopens', () => {
    const { b, advance } = breakers();
    fail(b, 'a', 4);
    advance(OPTIONS.resetTimeoutMs);
    expect(b.openCount()).toBe(0);
    expect(b.admit('a')).toEqual({ admitted: true, trial: true });
    // Others wait for the trial's outcome.
    expect(b.admit('a').admitted).toBe(false);
    b.record('a', 'failure', true);
    expect(b.admit('a')).toEqual({ admitted: false, retryAfterSeconds: 10 });
    advance(OPTIONS.resetTimeoutMs);
    expect(b.admit('a')).toEqual({ admitted: true, trial: true });
    b.record('a', 'success', true);
    expect(b.admit('a')).toEqual({ admitted: true, trial: false });
    expect(b.openCount()).toBe(0);
  });

  it("gives a trial's place back when the trial never reached the backend (cancelled): the next call is the trial", () => {
    const { b, advance } = breakers();
    fail(b, 'a', 4);
    advance(OPTIONS.resetTimeoutMs);
    expect(b.admit('a').admitted).toBe(true);
    b.record('a', 'none', true);
    expect(b.admit('a')).toEqual({ admitted: true, trial: true });
  });

  it('says most are shed only when at least three projects are, and half of those active', () => {
    const { b } = breakers();
    for (const p of ['a', 'b']) fail(b, p, 4);
    expect(b.mostAreShed()).toBe(false);
    fail(b, 'c', 4);
    for (const p of ['d', 'e', 'f', 'g']) b.record(p, 'success', false);
    expect(b.mostAreShed()).toBe(false);
    fail(b, 'h', 4);
    expect(b.mostAreShed()).toBe(true);
  });

  it('tracks only the projects active in the last window', () => {
    const { b, advance } = breakers();
    for (let i = 0; i < 100; i++) b.record(`p${i}`, 'success', false);
    expect(b.size).toBe(100);
    advance(OPTIONS.rollingCountTimeoutMs * 2);
    b.record('fresh', 'success', false);
    expect(b.size).toBe(1);
  });
});
