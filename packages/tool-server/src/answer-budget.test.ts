import { RateLimitedError, UserInputError } from '@svc/errors';
import { createNoopMetrics, createPromMetrics, readGauge } from '@svc/metrics';
import {
  AnswerBudget,
  AnswerBudgetBusyError,
  type AnswerBudgetOptions,
  DEFAULT_ANSWER_BUDGET,
  type Release,
} from './answer-budget';

const MB = 1024 * 1024;
// The defaults (8 MB, 256 KB small, shares 1/2 and 3/4, 4 at once); waits in these tests end by a
// release or an abort, the deadline case sets its own.
const OPTIONS: AnswerBudgetOptions = { ...DEFAULT_ANSWER_BUDGET, maxWaitMs: 600_000 };
const budget = (options: Partial<AnswerBudgetOptions> = {}) =>
  new AnswerBudget({ ...OPTIONS, ...options }, createNoopMetrics());
/** A project of its own org. */
const p = (project: string) => ({ project, org: `org_${project}` });

/** Resolves to the order in which reservations were granted. */
function track(order: string[], label: string, promise: Promise<Release>): Promise<Release> {
  return promise.then((release) => {
    order.push(label);
    return release;
  });
}

const settle = () => new Promise((r) => setImmediate(r));

describe('AnswerBudget', () => {
  it('lets small answers through without counting them, also when the budget is used up', async () => {
    const b = budget();
    const big = await b.reserve(p('a'), 8 * MB);
    expect(b.heldBytes).toBe(8 * MB);
    const small = await b.reserve(p('b'), 200 * 1024);
    expect(b.heldBytes).toBe(8 * MB);
    small();
    big();
    expect(b.heldBytes).toBe(0);
  });

  it('refuses an answer larger than the whole budget with a clear, narrowing message', async () => {
    const err = await budget()
      .reserve(p('a'), 9 * MB)
      .catch((e) => e);
    expect(err).toBeInstanceOf(UserInputError);
    expect(err.message).toBe(
      'The result is 9.0 MB, more than the 8.0 MB one call may return; narrow the query (fewer days, a lower limit or max_day, a filter).',
    );
    expect(err.details).toEqual({ limit: 'answer_bytes', limit_bytes: 8 * MB, answer_bytes: 9 * MB });
  });

  it('holds large answers back once the budget is full and lets them in as bytes are released', async () => {
    const b = budget();
    const order: string[] = [];
    const first = await b.reserve(p('a'), 3 * MB);
    const second = await b.reserve(p('b'), 3 * MB);
    const third = track(order, 'c', b.reserve(p('c'), 3 * MB));
    await settle();
    expect(order).toEqual([]);
    first();
    (await third)();
    second();
    expect(order).toEqual(['c']);
    expect(b.heldBytes).toBe(0);
  });

  it('never lets one project hold more than its share, even alone: the next tenant finds room at once', async () => {
    const b = budget();
    const order: string[] = [];
    const a = [await b.reserve(p('a'), 2 * MB), await b.reserve(p('a'), 2 * MB)];
    // A holds its share (4 of 8 MB, 2 of 4 answers): its third waits although the budget has room.
    const aThird = track(order, 'a3', b.reserve(p('a'), 1 * MB));
    await settle();
    expect(order).toEqual([]);
    // B, holding nothing, is let in at once, ahead of A's waiting answer.
    const bFirst = await b.reserve(p('b'), 3 * MB);
    expect(b.heldBytes).toBe(7 * MB);
    a[0]!();
    (await aThird)();
    expect(order).toEqual(['a3']);
    a[1]!();
    bFirst();
    expect(b.heldBytes).toBe(0);
  });

  it('caps an org, all its projects together, at its share: another org finds room', async () => {
    const b = budget();
    const org = (project: string) => ({ project, org: 'org_big' });
    const held = [
      await b.reserve(org('a1'), 2 * MB),
      await b.reserve(org('a2'), 2 * MB),
      await b.reserve(org('a3'), 2 * MB),
    ];
    const order: string[] = [];
    // The org holds 6 of 8 MB and 3 of 4 answers (its share): a fourth project of it waits.
    const a4 = track(order, 'a4', b.reserve(org('a4'), 1 * MB));
    await settle();
    expect(order).toEqual([]);
    const other = await b.reserve(p('b'), 2 * MB);
    held[0]!();
    (await a4)();
    expect(order).toEqual(['a4']);
    for (const release of [...held, other]) release();
    expect(b.heldBytes).toBe(0);
  });

  it('lets a tenant holding nothing take one answer as large as the whole budget', async () => {
    const b = budget();
    const whole = await b.reserve(p('a'), 8 * MB);
    expect(b.heldBytes).toBe(8 * MB);
    whole();
  });

  it("serves the project holding least first: a flood's backlog does not delay another project's answer", async () => {
    const b = budget({ projectShare: 1, orgShare: 1, maxLarge: 2 });
    const order: string[] = [];
    const held = [await b.reserve(p('a'), 4 * MB), await b.reserve(p('a'), 4 * MB)];
    const waiting = [
      track(order, 'a1', b.reserve(p('a'), 4 * MB)),
      track(order, 'a2', b.reserve(p('a'), 4 * MB)),
      track(order, 'b1', b.reserve(p('b'), 4 * MB)),
    ];
    await settle();
    held[0]!();
    await settle();
    // 4 MB free: B (holding nothing) goes first although it came last.
    expect(order).toEqual(['b1']);
    held[1]!();
    await settle();
    expect(order).toEqual(['b1', 'a1']);
    (await waiting[2]!)();
    await settle();
    expect(order).toEqual(['b1', 'a1', 'a2']);
    for (const release of await Promise.all(waiting)) release();
    expect(b.heldBytes).toBe(0);
  });

  it('drops a waiting answer whose caller left, and a release twice counts once', async () => {
    const b = budget();
    const full = await b.reserve(p('a'), 8 * MB);
    const controller = new AbortController();
    const gone = b.reserve(p('b'), 2 * MB, controller.signal);
    controller.abort(new Error('client left'));
    await expect(gone).rejects.toThrow('client left');
    expect(b.waiting).toBe(0);
    full();
    full();
    expect(b.heldBytes).toBe(0);
    const next = await b.reserve(p('b'), 8 * MB);
    expect(b.heldBytes).toBe(8 * MB);
    next();
  });

  it('refuses an answer that waited maxWaitMs (503, retry shortly), and it holds nothing after', async () => {
    const b = budget({ maxWaitMs: 50 });
    const full = await b.reserve(p('a'), 8 * MB);
    const err = await b.reserve(p('b'), 1 * MB).catch((e) => e);
    expect(err).toBeInstanceOf(AnswerBudgetBusyError);
    expect(err.retryAfterSeconds).toBe(1);
    expect(err.message).toBe(
      'The gateway is busy with other large answers (waited 0.05 s to be read); retry shortly.',
    );
    expect(b.waiting).toBe(0);
    full();
    expect(b.heldBytes).toBe(0);
  });

  it('bounds the answers waiting per project (429), per org (429) and in all (503)', async () => {
    const b = budget({ maxWaiting: 5, maxWaitingPerProject: 2, maxWaitingPerOrg: 3 });
    const full = await b.reserve(p('x'), 8 * MB);
    const controller = new AbortController();
    const wait = (tenant: { project: string; org: string }) =>
      b.reserve(tenant, 1 * MB, controller.signal).catch((e) => e);
    const queued = [wait(p('a')), wait(p('a'))];
    const overProject = await b.reserve(p('a'), 1 * MB).catch((e) => e);
    expect(overProject).toBeInstanceOf(RateLimitedError);
    expect(overProject.message).toBe(
      'Too many large answers of this project are waiting to be read (2); retry when one has finished, or narrow the query.',
    );
    const org = (project: string) => ({ project, org: 'org_o' });
    queued.push(wait(org('o1')), wait(org('o2')), wait(org('o3')));
    const overOrg = await b.reserve(org('o4'), 1 * MB).catch((e) => e);
    expect(overOrg).toBeInstanceOf(RateLimitedError);
    expect(overOrg.message).toMatch(
      /^Too many large answers of this organization are waiting to be read \(3\)/,
    );
    // Five waiting in all: the instance's bound, for a tenant far from its own.
    expect(b.waiting).toBe(5);
    const overAll = await b.reserve(p('z'), 1 * MB).catch((e) => e);
    expect(overAll).toBeInstanceOf(AnswerBudgetBusyError);
    controller.abort(new Error('done'));
    await Promise.all(queued);
    expect(b.waiting).toBe(0);
    full();
    expect(b.heldBytes).toBe(0);
  });

  it('handles at most maxLarge large answers at once, however small', async () => {
    const b = budget({ smallBytes: 1024, projectShare: 1, orgShare: 1, maxLarge: 2 });
    const order: string[] = [];
    const two = [await b.reserve(p('a'), 2048), await b.reserve(p('a'), 2048)];
    const third = track(order, 'third', b.reserve(p('a'), 2048));
    await settle();
    expect(order).toEqual([]);
    two[0]!();
    (await third)();
    two[1]!();
    expect(order).toEqual(['third']);
  });

  it('counts an answer of unannounced size as 1 MB', async () => {
    const b = budget();
    const release = await b.reserve(p('a'), undefined);
    expect(b.heldBytes).toBe(MB);
    release();
  });

  it('shows bytes, answers and waiters as holding gauges that read 0 when idle', async () => {
    const metrics = createPromMetrics({ defaultMetrics: false });
    const b = new AnswerBudget(OPTIONS, metrics);
    const held = await b.reserve(p('a'), 8 * MB);
    const controller = new AbortController();
    const waiting = b.reserve(p('b'), MB, controller.signal).catch(() => undefined);
    let text = await metrics.render();
    expect(readGauge(text, 'svc_answer_budget_bytes_held')).toBe(8 * MB);
    expect(readGauge(text, 'svc_answer_budget_answers_held')).toBe(1);
    expect(readGauge(text, 'svc_answer_budget_waiting')).toBe(1);
    expect(text).toContain('svc_holdings{gauge="svc_answer_budget_bytes_held"} 1');
    controller.abort();
    await waiting;
    held();
    text = await metrics.render();
    expect(readGauge(text, 'svc_answer_budget_bytes_held')).toBe(0);
    expect(readGauge(text, 'svc_answer_budget_waiting')).toBe(0);
  });
});
