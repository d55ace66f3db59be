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
