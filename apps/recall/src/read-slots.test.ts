import { QueryBudgetError } from '@svc/tool-kit';
import { ReadAbandonedError, ReadSlots } from './read-budget';

describe('read slots', () => {
  it('lets `size` reads in at once and the next in turn as each ends, first come first served', async () => {
    const slots = new ReadSlots(() => 2);
    const wait = { waitMs: 60_000, limitMs: 60_000 };
    const first = await slots.acquire(wait);
    const second = await slots.acquire(wait);
    const order: string[] = [];
    const inTurn = (name: string) =>
      slots.acquire(wait).then((release) => {
        order.push(name);
        return release;
      });
    const third = inTurn('third');
    const fourth = inTurn('fourth');
    expect([slots.busy, slots.waiting]).toEqual([2, 2]);
    first();
    first(); // a second release of the same slot changes nothing
    (await third)();
    second();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    expect([slots.busy, slots.waiting]).toEqual([0, 0]);
  });

  it('gives up at the deadline with the time budget error, and when the caller goes away', async () => {
    const slots = new ReadSlots(() => 1);
    const held = await slots.acquire({ waitMs: 1, limitMs: 10_000 });
    await expect(slots.acquire({ waitMs: 5, limitMs: 10_000 })).rejects.toMatchObject({
      constructor: QueryBudgetError,
      details: { budget: 'time', limit_ms: 10_000 },
    });
    await expect(slots.acquire({ waitMs: 0, limitMs: 10_000 })).rejects.toBeInstanceOf(QueryBudgetError);
    const gone = new AbortController();
    const waiting = slots.acquire({ waitMs: 60_000, limitMs: 60_000, signal: gone.signal });
    gone.abort();
    await expect(waiting).rejects.toBeInstanceOf(ReadAbandonedError);
    expect(slots.waiting).toBe(0);
    held();
    expect(slots.busy).toBe(0);
  });
});
