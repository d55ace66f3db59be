import type { ClickHouse, QueryOptions } from '@svc/clickhouse';
import { budgetedClickHouse } from './budgeted-clickhouse';

function recording() {
  const seen: (QueryOptions | undefined)[] = [];
  const ch = {
    database: 'db',
    embedded: true,
    concurrency: 4,
    query: async (_sql: string, _params?: Record<string, unknown>, options?: QueryOptions) => {
      seen.push(options);
      return [];
    },
  } as unknown as ClickHouse;
  return { ch, seen };
}

const budget = (priority: number) => ({
  deadline: Date.now() + 5_000,
  signal: new AbortController().signal,
  maxMemoryUsageBytes: 1000,
  priority,
});

describe('budgetedClickHouse', () => {
  it("caps a query by the call's deadline and memory, whatever the tool asks for", async () => {
    const { ch, seen } = recording();
    await budgetedClickHouse(ch, budget(1)).query(
      'SELECT 1',
      {},
      {
        maxExecutionTimeSeconds: 60,
        maxMemoryUsageBytes: 10_000,
      },
    );
    expect(seen[0]).toMatchObject({ maxExecutionTimeSeconds: 5, maxMemoryUsageBytes: 1000, priority: 1 });
  });

  it('leaves threads and CPU priority to the engine for a quiet project, and limits a busy one', async () => {
    const { ch, seen } = recording();
    await budgetedClickHouse(ch, budget(1)).query('SELECT 1');
    await budgetedClickHouse(ch, budget(4)).query('SELECT 1');
    expect(seen[0]?.maxThreads).toBeUndefined();
    expect(seen[0]?.threadNiceness).toBeUndefined();
    expect(seen[1]).toMatchObject({ maxThreads: 1, threadNiceness: 10, priority: 4 });
  });

  it('keeps the one thread a point query asks for, and never gives a tool more than the budget allows', async () => {
    const { ch, seen } = recording();
    await budgetedClickHouse(ch, budget(1)).query('SELECT 1', {}, { maxThreads: 1 });
    await budgetedClickHouse(ch, budget(4)).query('SELECT 1', {}, { maxThreads: 8 });
    expect(seen[0]?.maxThreads).toBe(1);
    expect(seen[1]?.maxThreads).toBe(1);
  });
});
