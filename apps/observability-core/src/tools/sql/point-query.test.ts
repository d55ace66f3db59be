import type { ClickHouse, QueryOptions } from '@svc/clickhouse';
import type { AnyCoreTool } from '../core-tool';
import { crashGetQuery } from '../crash/crash-get';
import { crashStatsQuery } from '../crash/crash-stats';
import { logRecentQuery } from '../logs/log-recent';

/** The options of every query a tool makes (the engine answers no rows). */
async function optionsOf(
  tool: AnyCoreTool,
  args: Record<string, unknown>,
): Promise<(QueryOptions | undefined)[]> {
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
  await tool.run({ ch, projectId: 'p', now: Date.UTC(2026, 10, 26) }, tool.input.parse(args));
  return seen;
}

describe('point queries run on one thread', () => {
  it('crash.get and the unfiltered log.recent ask for one thread', async () => {
    for (const [tool, args] of [
      [crashGetQuery, { event_id: 'e1' }],
      [logRecentQuery, { limit: 1 }],
      [logRecentQuery, { limit: 5, trace_id: 'a'.repeat(32) }],
    ] as const) {
      const seen = await optionsOf(tool, args);
      expect(seen.length).toBeGreaterThan(0);
      for (const options of seen) expect(options?.maxThreads).toBe(1);
    }
  });

  it("leaves scans (a level filter, an aggregate) to the engine's own thread count", async () => {
    for (const [tool, args] of [
      [logRecentQuery, { limit: 1, level: 'ERROR' }],
      [crashStatsQuery, {}],
    ] as const) {
      const seen = await optionsOf(tool, args);
      expect(seen.length).toBeGreaterThan(0);
      for (const options of seen) expect(options?.maxThreads).toBeUndefined();
    }
  });
});
