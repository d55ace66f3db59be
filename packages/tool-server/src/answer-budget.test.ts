import { createNoopMetrics } from '@svc/metrics';
import { UserInputError } from '@svc/tool-kit';
import { AnswerBudget, type Release } from './answer-budget';

const MB = 1024 * 1024;
const budget = () =>
  new AnswerBudget(
    { totalBytes: 8 * MB, smallBytes: 256 * 1024, projectShare: 0.5, maxLarge: 4 },
    createNoopMetrics(),
  );

/** Resolves to the order in which reservations were granted. */
function track(order: string[], label: string, p: Promise<Release>): Promise<Release> {
  return p.then((release) => {
    order.push(label);
    return release;
  });
}

const settle = () => new Promise((r) => setImmediate(r));

describe('AnswerBudget', () => {
  it('lets small answers through without counting them, also when the budget is used up', async () => {
    const b = budget();
    const big = await b.reserve('prj_a', 8 * MB);
    expect(b.heldBytes).toBe(8 * MB);
    const small = await b.reserve('prj_b', 200 * 1024);
    expect(b.heldBytes).toBe(8 * MB);
    small();
    big();
    expect(b.heldBytes).toBe(0);
  });

  it('refuses an answer larger than the whole budget with a clear, narrowing message', async () => {
    const err = await budget()
      .reserve('prj_a', 9 * MB)
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
    const first = await b.reserve('prj_a', 3 * MB);
    const second = await b.reserve('prj_a', 3 * MB);
    const third = track(order, 'a3', b.reserve('prj_a', 3 * MB));
    await settle();
    expect(order).toEqual([]);
    first();
    (await third)();
    second();
    expect(order).toEqual(['a3']);
    expect(b.heldBytes).toBe(0);
  });

  it("serves the project holding least first: a flood's backlog does not delay another project's answer", async () => {
    const b = budget();
    const order: string[] = [];
    const held = [await b.reserve('prj_a', 4 * MB), await b.reserve('prj_a', 4 * MB)];
    const waiting = [
      track(order, 'a1', b.reserve('prj_a', 2 * MB)),
      track(order, 'a2', b.reserve('prj_a', 2 * MB)),
      track(order, 'b1', b.reserve('prj_b', 2 * MB)),
    ];
    await settle();
    held[0]!();
    await settle();
    // 4 MB free: B (holding nothing) goes first although it came last; A, at its share, waits.
    expect(order).toEqual(['b1']);
    held[1]!();
    await settle();
    expect(order).toEqual(['b1', 'a1', 'a2']);
    for (const release of await Promise.all(waiting)) release();
    expect(b.heldBytes).toBe(0);
  });

  it('lets a project alone use the whole budget, and caps it at its share while another waits', async () => {
    const b = budget();
    const alone = [await b.reserve('prj_a', 3 * MB), await b.reserve('prj_a', 3 * MB)];
    expect(b.heldBytes).toBe(6 * MB);
    const order: string[] = [];
    const bWaits = track(order, 'b', b.reserve('prj_b', 3 * MB));
    const aWaits = track(order, 'a', b.reserve('prj_a', 2 * MB));
    await settle();
    alone[0]!();
    await settle();
    // 5 MB free: B's 3 MB fits; A, holding 3 MB, may not pass its share of 4 MB while B is there.
    expect(order).toEqual(['b']);
    alone[1]!();
    await settle();
    expect(order).toEqual(['b', 'a']);
    (await bWaits)();
    (await aWaits)();
    expect(b.heldBytes).toBe(0);
  });

  it('drops a waiting answer whose caller left, and a release twice counts once', async () => {
    const b = budget();
    const full = await b.reserve('prj_a', 8 * MB);
    const controller = new AbortController();
    const gone = b.reserve('prj_a', 2 * MB, controller.signal);
    controller.abort(new Error('client left'));
    await expect(gone).rejects.toThrow('client left');
    full();
    full();
    expect(b.heldBytes).toBe(0);
    const next = await b.reserve('prj_b', 8 * MB);
    expect(b.heldBytes).toBe(8 * MB);
    next();
  });

  it('handles at most maxLarge large answers at once, however small', async () => {
    const b = new AnswerBudget(
      { totalBytes: 8 * MB, smallBytes: 1024, projectShare: 1, maxLarge: 2 },
      createNoopMetrics(),
    );
    const order: string[] = [];
    const two = [await b.reserve('prj_a', 2048), await b.reserve('prj_a', 2048)];
    const third = track(order, 'third', b.reserve('prj_a', 2048));
    await settle();
    expect(order).toEqual([]);
    two[0]!();
    (await third)();
    two[1]!();
    expect(order).toEqual(['third']);
  });

  it('counts an answer of unannounced size as 1 MB', async () => {
    const b = budget();
    const release = await b.reserve('prj_a', undefined);
    expect(b.heldBytes).toBe(MB);
    release();
  });
});
