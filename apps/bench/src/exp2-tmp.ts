import { existsSync } from 'node:fs';
import { createClickHouse } from '@svc/clickhouse';
import { migrateCore } from '@svc/observability-core';
import { loadSpans } from './suites/traces';

const path = '/tmp/exp2-ch';
const fresh = !existsSync(path);
const ch = await createClickHouse({ path, database: 'bench' });
const now = Date.now() - 3_600_000;
if (fresh) {
  await migrateCore(ch);
  await loadSpans(ch, 'big', 10_000_000, now);
  console.log('loaded');
}
const R = Number(process.env.R ?? 5);
for (const sql of process.argv.slice(2)) {
  const times: number[] = [];
  let rows: unknown;
  for (let i = 0; i < R; i++) {
    const t = performance.now();
    rows = await ch.query(sql, {});
    times.push(performance.now() - t);
  }
  console.log(
    times
      .sort((a, b) => a - b)
      .map((t) => t.toFixed(0))
      .join(' '),
    JSON.stringify(rows).slice(0, 200),
  );
}
await ch.close();
