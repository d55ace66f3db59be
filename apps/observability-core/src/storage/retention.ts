import type { ClickHouse } from '@svc/clickhouse';
import { type Retention, TTL_COLUMNS } from './migrations';

/**
 * Brings every table's TTL to the configured retention. Tables get their TTL when created; this
 * runs at each start so a changed setting also applies to existing tables. It only alters a table
 * whose TTL differs, since MODIFY TTL can rewrite parts.
 */
export async function applyRetention(ch: ClickHouse, retention: Retention): Promise<string[]> {
  const rows = await ch.query<{ name: string; engine_full: string }>(
    'SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND name IN {names:Array(String)}',
    { names: Object.keys(TTL_COLUMNS) },
  );
  const changed: string[] = [];
  for (const row of rows) {
    const t = TTL_COLUMNS[row.name]!;
    const days = retention[t.kind];
    if (!Number.isInteger(days) || days < 1)
      throw new Error(`retention ${t.kind} must be a positive integer`);
    if (row.engine_full.includes(`toIntervalDay(${days})`)) continue;
    await ch.command(`ALTER TABLE ${row.name} MODIFY TTL toDateTime(${t.column}) + toIntervalDay(${days})`);
    changed.push(row.name);
  }
  return changed.sort();
}
