import { QueryCancelledError } from './errors';
import { SessionPool } from './session-pool';

describe('SessionPool', () => {
  it('hands a freed session to the waiter with the lowest priority number, in arrival order among equals', async () => {
    const pool = new SessionPool(['s1']);
    const first = await pool.acquire();
    const order: string[] = [];
    const wait = (name: string, priority: number) =>
      pool.acquire(undefined, priority).then((s) => {
        order.push(name);
        pool.release(s);
      });
    const all = [
      wait('busy-1', 10),
      wait('busy-2', 10),
      wait('quiet', 1),
      wait('ingest', 0),
      wait('busy-3', 10),
    ];
    pool.release(first);
    await Promise.all(all);
    expect(order).toEqual(['ingest', 'quiet', 'busy-1', 'busy-2', 'busy-3']);
  });

  it('hands out the idle session that costs a statement least, the most recently used among equals', async () => {
    const pool = new SessionPool(['a', 'b', 'c']);
    const held = new Map([
      ['a', 'point'],
      ['b', 'scan'],
      ['c', 'scan'],
    ]);
    const costFor = (wanted: string) => (s: string) => (held.get(s) === wanted ? 0 : 1);
    const point = await pool.acquire(undefined, 0, costFor('point'));
    expect(point).toBe('a');
    pool.release(point);
    // Both scan sessions cost nothing: the one used last ('c', idle last) goes first.
    const scan = await pool.acquire(undefined, 0, costFor('scan'));
    expect(scan).toBe('c');
    // Without a cost, the most recently used idle session.
    expect(await pool.acquire()).toBe('a');
  });

  it('drops a waiter whose signal aborts, and drains once every session is back', async () => {
    const pool = new SessionPool(['s1']);
    const held = await pool.acquire();
    const abort = new AbortController();
    const gone = pool.acquire(abort.signal);
    abort.abort();
    await expect(gone).rejects.toBeInstanceOf(QueryCancelledError);
    let drained = false;
    const draining = pool.drain().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    pool.release(held);
    await draining;
    expect(drained).toBe(true);
  });
});
