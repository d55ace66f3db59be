import { QueryCancelledError } from '@svc/clickhouse';
import { createNoopMetrics } from '@svc/metrics';
import { FairScheduler, ProjectBusyError, type QueryTicket } from './fair-scheduler';

// The scheduler alone, with work we finish by hand: which query starts when is exact here.

interface Job {
  project: string;
  name: string;
  ticket?: QueryTicket;
  finish: () => void;
  fail: (err: Error) => void;
  result: Promise<string>;
}

function harness(
  limits = { concurrency: 2, perProject: 1, queuedPerProject: 10 },
  options: { now?: () => number; presenceMs?: number } = {},
) {
  const scheduler = new FairScheduler(limits, createNoopMetrics(), options);
  const started: string[] = [];
  const jobs = new Map<string, Job>();
  function submit(project: string, name: string, options: { deadline?: number; signal?: AbortSignal } = {}) {
    const job = { project, name } as Job;
    job.result = scheduler.run(project, options.deadline ?? Date.now() + 60_000, options.signal, (ticket) => {
      job.ticket = ticket;
      started.push(name);
      return new Promise<string>((resolve, reject) => {
        job.finish = () => resolve(name);
        job.fail = reject;
      });
    });
    job.result.catch(() => undefined);
    jobs.set(name, job);
    return job;
  }
  const finish = async (name: string) => {
    jobs.get(name)!.finish();
    await jobs.get(name)!.result;
    await new Promise((r) => setImmediate(r));
  };
  return { scheduler, started, submit, finish };
}

describe('FairScheduler', () => {
  it("starts another project's next query before the rest of a busy project's backlog", async () => {
    const { started, submit, finish } = harness({ concurrency: 1, perProject: 1, queuedPerProject: 10 });
    for (let i = 1; i <= 5; i++) submit('A', `a${i}`);
    submit('B', 'b1');
    submit('B', 'b2');
    expect(started).toEqual(['a1']);
    await finish('a1');
    await finish('b1');
    await finish('a2');
    await finish('b2');
    await finish('a3');
    expect(started).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4']);
  });

  it('lets a project alone use every slot but one, and holds it to its share once another comes', async () => {
    const { started, submit, finish } = harness({ concurrency: 4, perProject: 2, queuedPerProject: 50 });
    for (let i = 1; i <= 20; i++) submit('A', `a${i}`);
    expect(started).toEqual(['a1', 'a2', 'a3']);
    // The slot left free: B's first call starts at once.
    submit('B', 'b1');
    submit('C', 'c1');
    expect(started).toEqual(['a1', 'a2', 'a3', 'b1']);
    // A is over its share now that others are here: its finished slot goes to C.
    await finish('a1');
    expect(started).toEqual(['a1', 'a2', 'a3', 'b1', 'c1']);
    await finish('a2');
    expect(started).toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'a4']);
  });

  it('counts a project as present for presenceMs after its last call, then lets the other use the slots', async () => {
    let now = 1_000_000;
    const { started, submit, finish } = harness(
      { concurrency: 4, perProject: 1, queuedPerProject: 50 },
      { now: () => now, presenceMs: 2000 },
    );
    submit('B', 'b1');
    await finish('b1');
    now += 1500;
    for (let i = 1; i <= 10; i++) submit('A', `a${i}`);
    expect(started).toEqual(['b1', 'a1']);
    now += 1000;
    await finish('a1');
    expect(started).toEqual(['b1', 'a1', 'a2', 'a3', 'a4']);
  });

  it("refuses beyond a project's queue with 429 for that project only", async () => {
    const { started, submit } = harness({ concurrency: 1, perProject: 1, queuedPerProject: 2 });
    const jobs = ['a1', 'a2', 'a3', 'a4'].map((n) => submit('A', n));
    await expect(jobs[3]!.result).rejects.toBeInstanceOf(ProjectBusyError);
    await expect(jobs[3]!.result).rejects.toThrow(/1 running, 2 waiting/);
    submit('B', 'b1');
    expect(started).toEqual(['a1']);
  });

  it('refuses a query still waiting at its deadline, and drops one whose caller left', async () => {
    const { started, submit, finish } = harness({ concurrency: 1, perProject: 1, queuedPerProject: 10 });
    submit('A', 'a1');
    const late = submit('B', 'late', { deadline: Date.now() + 20 });
    const abort = new AbortController();
    const gone = submit('C', 'gone', { signal: abort.signal });
    abort.abort();
    await expect(gone.result).rejects.toBeInstanceOf(QueryCancelledError);
    await expect(late.result).rejects.toBeInstanceOf(ProjectBusyError);
    submit('D', 'd1');
    await finish('a1');
    expect(started).toEqual(['a1', 'd1']);
  });

  it('gives the engine priority 1 to a quiet project, lower ones to a project with a backlog', async () => {
    const { submit, finish } = harness({ concurrency: 4, perProject: 2, queuedPerProject: 50 });
    submit('B', 'b0');
    await finish('b0');
    const a1 = submit('A', 'a1');
    const a2 = submit('A', 'a2');
    for (let i = 3; i <= 30; i++) submit('A', `a${i}`);
    const b1 = submit('B', 'b1');
    expect([a1.ticket?.priority, a2.ticket?.priority, b1.ticket?.priority]).toEqual([1, 2, 1]);
  });

  it('keeps priority 1 for a project alone, whatever its backlog: there is nobody to yield to', () => {
    const { submit } = harness({ concurrency: 4, perProject: 1, queuedPerProject: 50 });
    const jobs = Array.from({ length: 10 }, (_, i) => submit('A', `a${i + 1}`));
    expect(jobs.map((j) => j.ticket?.priority)).toEqual([1, 1, 1, ...Array(7).fill(undefined)]);
  });

  it('frees the slot of a failed query and counts what runs and waits', async () => {
    const { scheduler, started, submit } = harness({ concurrency: 1, perProject: 1, queuedPerProject: 10 });
    const a1 = submit('A', 'a1');
    submit('A', 'a2');
    expect(scheduler.snapshot()).toEqual({ running: 1, queued: 1 });
    a1.fail(new Error('engine said no'));
    await expect(a1.result).rejects.toThrow('engine said no');
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['a1', 'a2']);
    expect(scheduler.snapshot()).toEqual({ running: 1, queued: 0 });
  });
});
