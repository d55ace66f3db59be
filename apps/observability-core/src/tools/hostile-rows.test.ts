import { type CoreHarness, createCoreHarness } from '../testing/core-harness';
import { everyToolCall, failingToolCalls } from '../testing/every-tool';
import { HOSTILE_IDS, insertHostileRows } from '../testing/hostile-rows';
import { coreQueries } from './registry';

// Whatever a table holds (NaN, infinities, 1e308, -0, negative durations, huge integers, empty
// and 10k-character strings, invalid UTF-8, JSON columns that are not JSON or not of their shape,
// times at the ends of the DateTime64 range), every tool the core serves answers 200 with an
// answer its output schema accepts: one stored value must never break a read (docs/semantics.md).

const NOW = Math.floor(Date.now() / 60_000) * 60_000;
const PROJECT = 'hostile_rows';

describe('hostile stored rows', () => {
  let h: CoreHarness;
  beforeAll(async () => {
    h = await createCoreHarness('core_hostile_rows', NOW, []);
    await insertHostileRows(h.ch, PROJECT, NOW);
  });
  afterAll(async () => {
    await h.close();
  });

  it('the rows are there: every table of the project holds them', async () => {
    for (const table of [
      'logs',
      'crashes',
      'spans',
      'metrics',
      'events',
      'feedback',
      'sessions',
      'experiments',
    ]) {
      const [row] = await h.ch.query<{ n: string }>(
        `SELECT count() AS n FROM ${table} WHERE project_id = {p:String}`,
        { p: PROJECT },
      );
      expect(Number(row?.n)).toBeGreaterThan(0);
    }
  });

  it('calls every core tool at least once', () => {
    const called = new Set(everyToolCall(HOSTILE_IDS).map((c) => c.tool.name));
    expect([...called].sort()).toEqual(coreQueries.map((t) => t.name).sort());
  });

  it('every core tool answers 200 with an answer its output schema accepts', async () => {
    expect(await failingToolCalls(h, PROJECT, HOSTILE_IDS)).toEqual([]);
  });
});
