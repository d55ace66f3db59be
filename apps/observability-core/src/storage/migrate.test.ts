import { type ClickHouse, createTestClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { migrateCore } from './migrate';
import { TTL_COLUMNS } from './migrations';
import { applyRetention } from './retention';

describe('migrateCore', () => {
  let ch: ClickHouse;
  beforeAll(async () => {
    ch = await createTestClickHouse('core_migrate');
  });
  afterAll(async () => {
    await dropTestClickHouse(ch);
  });

  it('creates every table of the ingest format, project_id first, with a TTL; twice is harmless', async () => {
    await migrateCore(ch);
    await migrateCore(ch);
    const tables = await ch.query<{ name: string; sorting_key: string; engine_full: string }>(
      'SELECT name, sorting_key, engine_full FROM system.tables WHERE database = currentDatabase() ORDER BY name',
    );
    const names = tables.map((t) => t.name);
    for (const table of Object.keys(TTL_COLUMNS)) {
      const found = tables.find((t) => t.name === table);
      expect(found).toBeDefined();
      expect(found!.sorting_key.startsWith('project_id')).toBe(true);
      expect(found!.engine_full).toContain(table === 'spans' ? 'toIntervalDay(14)' : 'toIntervalDay(90)');
    }
    expect(names).toContain('schema_migrations');
    const logs = tables.find((t) => t.name === 'logs')!;
    expect(logs.sorting_key).toBe('project_id, timestamp');
    const indexes = await ch.query<{ name: string; type: string; expr: string }>(
      "SELECT name, type, expr FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'logs'",
    );
    expect(indexes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'idx_message_ngram', type: 'ngrambf_v1', expr: 'lower(message)' }),
        expect.objectContaining({ name: 'idx_trace_id', type: 'bloom_filter', expr: 'trace_id' }),
      ]),
    );
  });

  it('materializes utm and experiment columns from event properties', async () => {
    await migrateCore(ch);
    await ch.insert('events', [
      {
        project_id: 'p',
        event_name: '$exposure',
        // Inside the 90-day TTL: an older row may be dropped by a merge before it is read.
        timestamp: new Date(Date.now() - 3_600_000).toISOString().replace('T', ' ').replace('Z', ''),
        user_id: 'u',
        session_id: '',
        platform: 'ios',
        app_version: '1',
        properties: JSON.stringify({ utm_source: 'news', experiment_key: 'exp1', variant: 'B' }),
      },
    ]);
    const rows = await ch.query('SELECT utm_source, utm_medium, experiment_key, variant FROM events');
    expect(rows).toEqual([{ utm_source: 'news', utm_medium: '', experiment_key: 'exp1', variant: 'B' }]);
  });

  it('moves an existing table to a changed retention and leaves the others alone', async () => {
    await migrateCore(ch);
    const changed = await applyRetention(ch, { spanDays: 7, defaultDays: 90 });
    expect(changed).toEqual(['spans']);
    const [spans] = await ch.query<{ engine_full: string }>(
      "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'spans'",
    );
    expect(spans!.engine_full).toContain('toIntervalDay(7)');
    expect(await applyRetention(ch, { spanDays: 7, defaultDays: 90 })).toEqual([]);
  });
});
