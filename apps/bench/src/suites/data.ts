import type { ClickHouse } from '@svc/clickhouse';

// Bulk data for the benchmarks, generated inside ClickHouse (INSERT ... SELECT FROM numbers) so
// loading millions of rows takes seconds. Distributions are deterministic (cityHash64 of the row
// number) and skewed like production: a few dominant crash signatures and a long tail (Zipf-like),
// a few very active users among many quiet ones.

export const DAY_MS = 86_400_000;
/** Rows per INSERT: each statement stays well inside the engine's per-query time limit. */
const CHUNK = 1_000_000;

export async function inChunks(rows: number, insert: (offset: number, count: number) => Promise<void>) {
  for (let offset = 0; offset < rows; offset += CHUNK) await insert(offset, Math.min(CHUNK, rows - offset));
}

/** `rows` crashes over the last `days` days; signature rank r has weight ~ 1/r over 2000 issues. */
export async function loadCrashes(ch: ClickHouse, projectId: string, rows: number, now: number, days = 30) {
  await inChunks(rows, (offset, count) =>
    ch.command(
      `INSERT INTO crashes (project_id, timestamp, event_id, signature, error_type, message, frames,
       breadcrumbs, platform, app_version, device_os, user_id, session_id)
     SELECT {p:String},
       fromUnixTimestamp64Milli(toInt64({now:Int64} - (cityHash64(number, 1) % {span:UInt64}))),
       lower(hex(cityHash64(number, 2, {p:String}))),
       lower(hex(cityHash64(toUInt64(floor(pow(2000, (cityHash64(number, 3) % 1000000) / 1000000.0))), 'sig'))),
       arrayElement(['TypeError', 'NullPointerException', 'EXC_BAD_ACCESS', 'OutOfMemoryError', 'RangeError'],
         1 + toUInt64(floor(pow(2000, (cityHash64(number, 3) % 1000000) / 1000000.0))) % 5),
       'Cannot read properties of undefined (reading ''id'')',
       '[{"function":"checkout","file":"app.js","line":10,"in_app":true}]',
       '[{"timestamp":"2026-01-01T00:00:00.000Z","category":"navigation","message":"/cart"}]',
       arrayElement(['ios', 'android', 'web'], 1 + cityHash64(number, 4) % 3),
       concat('3.', toString(cityHash64(number, 5) % 12), '.0'),
       arrayElement(['iOS 18.1', 'iOS 17.6', 'Android 15', 'Android 14', 'Windows', 'macOS'], 1 + cityHash64(number, 6) % 6),
       concat('user_', toString(cityHash64(number, 7) % 200000)),
       concat('sess_', toString(intDiv(number, 2)))
     FROM numbers({offset:UInt64}, {count:UInt64})`,
      { p: projectId, now, span: days * DAY_MS, offset, count },
    ),
  );
}

/**
 * `rows` log lines over the last `days` days for ~100k users; `heavyUser` writes 1% of all lines
 * (the worst case for user.detail), everyone else a handful.
 */
export async function loadLogs(
  ch: ClickHouse,
  projectId: string,
  rows: number,
  now: number,
  heavyUser: string,
  days = 30,
) {
  await inChunks(rows, (offset, count) =>
    ch.command(
      `INSERT INTO logs (project_id, timestamp, level, message, source, platform, app_version, user_id,
       session_id, device_id, trace_id, span_id, event_id, attributes)
     SELECT {p:String},
       fromUnixTimestamp64Milli(toInt64({now:Int64} - (cityHash64(number, 1) % {span:UInt64}))),
       arrayElement(['DEBUG', 'INFO', 'INFO', 'INFO', 'WARN', 'ERROR'], 1 + cityHash64(number, 2) % 6),
       concat(arrayElement(['GET /api/v1/cart', 'payment authorized', 'render took', 'cache miss for', 'timeout after'],
         1 + cityHash64(number, 3) % 5), ' ', toString(cityHash64(number, 4) % 100000)),
       arrayElement(['backend', 'device'], 1 + cityHash64(number, 5) % 2),
       arrayElement(['ios', 'android', 'web'], 1 + cityHash64(number, 6) % 3),
       '3.1.0',
       if(number % 100 = 0, {heavy:String}, concat('user_', toString(cityHash64(number, 7) % 100000))),
       concat('sess_', toString(intDiv(number, 40))),
       '', '', '', '', map()
     FROM numbers({offset:UInt64}, {count:UInt64})`,
      { p: projectId, now, span: days * DAY_MS, offset, count, heavy: heavyUser },
    ),
  );
}
