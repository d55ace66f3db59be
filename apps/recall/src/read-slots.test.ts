import { QueryBudgetError, RateLimitedError } from '@svc/errors';
import { ReadAbandonedError } from './read-budget';
import { ReadSlots, type SlotLimits } from './read-slots';

const WAIT = { waitMs: 60_000, limitMs: 60_000 };
const limitsOf =
  (limits: Partial<SlotLimits> = {}) =>
  (): SlotLimits => ({
    total: 4,
    perProject: 2,
    perOrg: 4,
    waitingPerProject: 8,
    waitingPerOrg: 64,
    waitingTotal: 64,
    ...limits,
  });

/** A gauge that keeps what it was set to. */
const gauge = () => {
  const g = {
    value: Number.NaN,
    set(v: number) {
      g.value = v;
    },
  };
  return g;
};

describe('read slots', () => {
  it('lets `total` reads in at once and the next in turn as each ends, first come first served', async () => {
    const slots = new ReadSlots(limitsOf({ total: 2, perProject: 2 }));
    const first = await slots.acquire({ projectId: 'a', ...WAIT });
    const second = await slots.acquire({ projectId: 'b', ...WAIT });
    const order: string[] = [];
    const inTurn = (name: string) =>
      slots.acquire({ projectId: name, ...WAIT }).then((release) => {
        order.push(name);
        return release;
      });
    const third = inTurn('c');
    const fourth = inTurn('d');
    expect([slots.busy, slots.waiting]).toEqual([2, 2]);
    first();
    first(); // a second release of the same slot changes nothing
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(['c', 'd']);
    expect([slots.busy, slots.waiting]).toEqual([0, 0]);
  });

  it('gives one org, all its projects together, at most its share: another org starts at once', async () => {
    const slots = new ReadSlots(limitsOf({ perOrg: 3, waitingPerOrg: 1 }));
    const org = (projectId: string) => ({ projectId, orgId: 'org_a', ...WAIT });
    const held = [
      await slots.acquire(org('a1')),
      await slots.acquire(org('a1')),
      await slots.acquire(org('a2')),
    ];
    let a3Started = false;
    const a3 = slots.acquire(org('a3')).then((release) => {
      a3Started = true;
      return release;
    });
    // The org's second waiting read is over its bound: refused at once, not queued.
    await expect(slots.acquire(org('a4'))).rejects.toThrow(
      "Too many reads of this organization's files at once (1 waiting); retry in a moment.",
    );
    // The fourth slot is free, but not for org_a: another org takes it.
    const other = await slots.acquire({ projectId: 'b1', orgId: 'org_b', ...WAIT });
    expect([slots.busy, slots.waiting, a3Started]).toEqual([4, 1, false]);
    other();
    expect(a3Started).toBe(false);
    held[0]!();
    (await a3)();
    for (const release of held) release();
    expect([slots.busy, slots.waiting]).toEqual([0, 0]);
  });

  it('gives one project at most its share: another project starts at once while it waits', async () => {
    const held = gauge();
    const waiting = gauge();
    const slots = new ReadSlots(limitsOf(), { held, waiting });
    const a1 = await slots.acquire({ projectId: 'a', ...WAIT });
    const a2 = await slots.acquire({ projectId: 'a', ...WAIT });
    let a3Started = false;
    const a3 = slots.acquire({ projectId: 'a', ...WAIT }).then((release) => {
      a3Started = true;
      return release;
    });
    expect([slots.heldBy('a'), slots.waiting, held.value, waiting.value]).toEqual([2, 1, 2, 1]);
    // Two slots are free and a waits ahead of b: b starts anyway, a's waiter does not hold the queue.
    const b1 = await slots.acquire({ projectId: 'b', ...WAIT });
    const b2 = await slots.acquire({ projectId: 'b', ...WAIT });
    expect([slots.busy, slots.heldBy('b'), a3Started]).toEqual([4, 2, false]);
    // The service is full: c waits behind a's waiter. The slot b frees passes over a's older
    // waiter (a holds its share) to c.
    const c1 = slots.acquire({ projectId: 'c', ...WAIT });
    b1();
    (await c1)();
    expect(a3Started).toBe(false);
    a1();
    (await a3)();
    a2();
    b2();
    expect([slots.busy, slots.waiting, held.value, waiting.value]).toEqual([0, 0, 0, 0]);
  });

  it('refuses a read past the waiting bounds with 429, of the project and of the service', async () => {
    const slots = new ReadSlots(limitsOf({ total: 1, perProject: 1, waitingPerProject: 1, waitingTotal: 2 }));
    const held = await slots.acquire({ projectId: 'a', ...WAIT });
    const gone = new AbortController();
    const a2 = slots.acquire({ projectId: 'a', ...WAIT, signal: gone.signal });
    await expect(slots.acquire({ projectId: 'a', ...WAIT })).rejects.toMatchObject({
      constructor: RateLimitedError,
      message: expect.stringContaining(
        "Too many reads of this project's files at once (1 reading, 1 waiting)",
      ),
    });
    const b1 = slots.acquire({ projectId: 'b', ...WAIT, signal: gone.signal });
    await expect(slots.acquire({ projectId: 'c', ...WAIT })).rejects.toMatchObject({
      constructor: RateLimitedError,
      message: expect.stringContaining('too many files at once'),
    });
    gone.abort();
    await expect(a2).rejects.toBeInstanceOf(ReadAbandonedError);
    await expect(b1).rejects.toBeInstanceOf(ReadAbandonedError);
    held();
    expect([slots.busy, slots.waiting]).toEqual([0, 0]);
  });

  it('gives up at the deadline with the time budget error, and when the caller goes away', async () => {
    const held = gauge();
    const waiting = gauge();
    const slots = new ReadSlots(limitsOf({ total: 1 }), { held, waiting });
    const first = await slots.acquire({ projectId: 'a', waitMs: 1, limitMs: 10_000 });
    await expect(slots.acquire({ projectId: 'b', waitMs: 5, limitMs: 10_000 })).rejects.toMatchObject({
      constructor: QueryBudgetError,
      details: { budget: 'time', limit_ms: 10_000 },
    });
    await expect(slots.acquire({ projectId: 'b', waitMs: 0, limitMs: 10_000 })).rejects.toBeInstanceOf(
      QueryBudgetError,
    );
    const gone = new AbortController();
    const waitingRead = slots.acquire({ projectId: 'b', ...WAIT, signal: gone.signal });
    expect(waiting.value).toBe(1);
    gone.abort();
    await expect(waitingRead).rejects.toBeInstanceOf(ReadAbandonedError);
    // A caller already gone does not take a slot, even a free one.
    first();
    await expect(slots.acquire({ projectId: 'b', ...WAIT, signal: gone.signal })).rejects.toBeInstanceOf(
      ReadAbandonedError,
    );
    expect([slots.busy, slots.waiting, held.value, waiting.value]).toEqual([0, 0, 0, 0]);
  });
});
