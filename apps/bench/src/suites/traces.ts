import type { ClickHouse } from '@svc/clickhouse';
import type { BenchCore } from '../core-harness';
import type { Summary } from '../stats';
import { DAY_MS, inChunks } from './data';

// Performance, release health and trace tools on a largest and a typical project, side by
// side. Data generated inside ClickHouse (INSERT ... SELECT FROM numbers), deterministic
// (cityHash64 of the row number), shaped like the demo: traces of 8 spans over five services, two
// of them head-sampled at 0.25 with error spans always kept; metrics app_start_ms, fps and
// memory_mb per session over 12 versions; one session row per 10 metric samples.

export const TRACE_TOOL_TARGETS = { typical: 250, largest: 500, traceGet: 50, traceSearchUser: 250 } as const;

const SPANS_PER_TRACE = 8;

export interface TraceToolRow {
  name: string;
  result: Summary | string;
  /** None for a measurement without a stated target (shown for reference). */
  target?: number;
}

/** The trace id of trace number `n` (as loadSpans writes it). */
export const TRACE_ID_SQL =
  "lower(concat(leftPad(hex(cityHash64(intDiv(number, 8), 't1', {p:String})), 16, '0'), leftPad(hex(cityHash64(intDiv(number, 8), 't2')), 16, '0')))";

/**
 * `rows` spans over the last 14 days: traces of 8 spans (mobile -> gateway -> checkout ->
 * payments -> db ...), one of ~100k users per trace; checkout and payments sampled at 0.25.
 */
export async function loadSpans(ch: ClickHouse, projectId: string, rows: number, now: number) {
  await inChunks(rows, (offset, count) =>
    ch.command(
      `INSERT INTO spans (project_id, start_time, trace_id, span_id, parent_span_id, kind, status,
         operation, service, duration_ms, attributes, user_id, session_id, sample_rate)
       SELECT {p:String},
         fromUnixTimestamp64Milli(toInt64({now:Int64} - (cityHash64(intDiv(number, 8), 1) % {span:UInt64}) + (number % 8) * 7)),
         ${TRACE_ID_SQL},
         lower(leftPad(hex(cityHash64(number, 's')), 16, '0')),
         if(number % 8 = 0, '', lower(leftPad(hex(cityHash64(number - 1, 's')), 16, '0'))),
         if(number % 8 = 0, 'client', 'server'),
         if(cityHash64(number, 2) % 50 = 0, 'error', 'ok'),
         if(number % 8 = 0,
           concat(arrayElement(['GET', 'POST'], 1 + cityHash64(intDiv(number, 8), 3) % 2), ' /api/v1/',
             arrayElement(['cart', 'checkout', 'items', 'search', 'profile', 'orders', 'pay', 'home'],
               1 + cityHash64(intDiv(number, 8), 4) % 8)),
           arrayElement(['gateway route', 'checkout.create', 'payments.authorize', 'db.query', 'db.query',
             'cache.get', 'render'], number % 8)),
         arrayElement(['mobile', 'gateway', 'checkout', 'payments', 'db', 'db', 'cache', 'mobile'], 1 + number % 8),
         round(1 + (cityHash64(number, 5) % 100000) / 100.0 * if(number % 8 = 0, 3, 1), 2),
         map('http.route', '/api/v1/x'),
         concat('user_', toString(cityHash64(intDiv(number, 8), 6) % 100000)),
         concat('sess_', toString(intDiv(number, 80))),
         if(number % 8 IN (2, 3), 0.25, 1)
       FROM numbers({offset:UInt64}, {count:UInt64})`,
      { p: projectId, now, span: 14 * DAY_MS, offset, count },
    ),
  );
}

/** `rows` metric samples over the last 14 days and one session per 10 samples. */
export async function loadMetrics(ch: ClickHouse, projectId: string, rows: number, now: number) {
  await inChunks(rows, (offset, count) =>
    ch.command(
      `INSERT INTO metrics (project_id, name, timestamp, value, unit, platform, app_version, session_id,
         user_id, attributes)
       SELECT {p:String},
         arrayElement(['app_start_ms', 'fps', 'memory_mb', 'memory_mb', 'fps'], 1 + number % 5),
         fromUnixTimestamp64Milli(toInt64({now:Int64} - (cityHash64(intDiv(number, 10), 1) % {span:UInt64}) + (number % 10) * 30000)),
         multiIf(number % 5 = 0, 600 + cityHash64(number, 2) % 3000,
                 number % 5 IN (1, 4), 30 + cityHash64(number, 2) % 31,
                 150 + (number % 10) * (cityHash64(intDiv(number, 10), 3) % 7) + cityHash64(number, 2) % 20),
         arrayElement(['ms', 'fps', 'MB', 'MB', 'fps'], 1 + number % 5),
         arrayElement(['ios', 'android'], 1 + cityHash64(intDiv(number, 10), 4) % 2),
         concat('3.', toString(cityHash64(intDiv(number, 10), 5) % 12), '.0'),
         concat('sess_', toString(intDiv(number, 10))),
         concat('user_', toString(cityHash64(intDiv(number, 10), 6) % 100000)),
         map()
       FROM numbers({offset:UInt64}, {count:UInt64})`,
      { p: projectId, now, span: 14 * DAY_MS, offset, count },
    ),
  );
  const sessions = Math.ceil(rows / 10);
  await inChunks(sessions, (offset, count) =>
    ch.command(
      `INSERT INTO sessions (project_id, session_id, user_id, started_at, ended_at, status, platform,
         app_version, ingested_at)
       SELECT {p:String}, concat('sess_', toString(number)),
         concat('user_', toString(cityHash64(number, 6) % 100000)),
         fromUnixTimestamp64Milli(toInt64({now:Int64} - (cityHash64(number, 1) % {span:UInt64}))),
         NULL,
         multiIf(cityHash64(number, 7) % 100 < 2, 'crashed', cityHash64(number, 7) % 1000 < 25, 'anr', 'ok'),
         arrayElement(['ios', 'android'], 1 + cityHash64(number, 4) % 2),
         concat('3.', toString(cityHash64(number, 5) % 12), '.0'),
         fromUnixTimestamp64Milli({now:Int64})
       FROM numbers({offset:UInt64}, {count:UInt64})`,
      { p: projectId, now, span: 14 * DAY_MS, offset, count },
    ),
  );
}

/**
 * Waits until the engine has had no merge running for 5 s in a row (at most `maxMs`): measured
 * right after loading 10M rows, every query would share the two cores with the merges of the
 * fresh parts and read many small parts, which is not the steady state a project's tables are in.
 * Returns the time waited and the active parts of the two tables.
 */
export async function settleMerges(ch: ClickHouse, maxMs = 300_000): Promise<{ ms: number; parts: string }> {
  const t0 = performance.now();
  let quiet = 0;
  while (performance.now() - t0 < maxMs && quiet < 10) {
    const [row] = await ch.query<{ n: string }>('SELECT count() AS n FROM system.merges', {});
    quiet = Number(row?.n) === 0 ? quiet + 1 : 0;
    await new Promise((r) => setTimeout(r, 500));
  }
  const parts = await ch.query<{ table: string; n: string }>(
    "SELECT table, count() AS n FROM system.parts WHERE active AND table IN ('spans', 'metrics') GROUP BY table ORDER BY table",
    {},
  );
  return { ms: performance.now() - t0, parts: parts.map((p) => `${p.table} ${p.n}`).join(', ') };
}

/** Loads `largest` spans and metric samples and largest / 20 of each, then measures every case on both. */
export async function benchTraces(core: BenchCore, largest: number, runs: number) {
  const typical = Math.max(SPANS_PER_TRACE, Math.round(largest / 20));
  const projects = [
    { label: 'largest', id: 'prj_apm_largest', rows: largest, target: TRACE_TOOL_TARGETS.largest },
    { label: 'typical', id: 'prj_apm_typical', rows: typical, target: TRACE_TOOL_TARGETS.typical },
  ];
  const notes: string[] = [];
  for (const p of projects) {
    const t0 = performance.now();
    await loadSpans(core.ch, p.id, p.rows, core.now);
    await loadMetrics(core.ch, p.id, p.rows, core.now);
    notes.push(
      `apm/traces ${p.label}: ${p.rows.toLocaleString()} spans, ${p.rows.toLocaleString()} metric samples and ` +
        `${Math.ceil(p.rows / 10).toLocaleString()} sessions loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  const settled = await settleMerges(core.ch);
  notes.push(
    `apm/traces: waited ${(settled.ms / 1000).toFixed(1)} s for background merges to settle before measuring (active parts: ${settled.parts})`,
  );
  const rows: TraceToolRow[] = [];
  for (const p of projects) {
    const size = `${p.label}, ${p.rows.toLocaleString()}`;
    const [sample] = await core.ch.query<{ trace_id: string; user_id: string }>(
      'SELECT trace_id, user_id FROM spans WHERE project_id = {p:String} ORDER BY start_time DESC LIMIT 1 OFFSET 7777',
      { p: p.id },
    );
    const cases: [string, string, unknown, number | undefined][] = [
      [`apm.stats 14 days (${size} samples)`, 'apm.stats', {}, p.target],
      [`trace.aggregate 14 days (${size} spans)`, 'trace.aggregate', {}, p.target],
      [
        `release.health 3 versions (${size} samples)`,
        'release.health',
        { versions: ['3.1.0', '3.4.0', '3.11.0'] },
        p.target,
      ],
      [`release.health 1 version (${size} samples)`, 'release.health', { version: '3.4.0' }, p.target],
      [`apm.memory_growth (${size} samples; no target)`, 'apm.memory_growth', {}, undefined],
      [
        `trace.get by trace_id (${size} spans)`,
        'trace.get',
        { trace_id: sample?.trace_id },
        TRACE_TOOL_TARGETS.traceGet,
      ],
      [
        `trace.search user_id (${size} spans)`,
        'trace.search',
        { user_id: sample?.user_id },
        TRACE_TOOL_TARGETS.traceSearchUser,
      ],
    ];
    for (const [name, tool, input, target] of cases)
      rows.push({
        name,
        result: await core.measure(p.id, tool, input, runs),
        ...(target === undefined ? {} : { target }),
      });
  }
  return { rows, notes };
}
