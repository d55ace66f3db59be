import type { ClickHouse } from '@svc/clickhouse';

// Rows no ingest route would accept, written straight into every table of a project (tests of the
// read side: whatever a table holds, from an older version, a bug or a hand-made insert, no tool
// may fail on it). Values go in as SQL literals, because JSON cannot carry NaN, infinities, -0 or
// invalid UTF-8: strings as unhex() of their bytes, floats as ClickHouse spells them.

/** A float as ClickHouse's SQL reads it, NaN, the infinities and -0 included. */
export class Float {
  constructor(readonly value: number) {}
  sql(): string {
    if (Number.isNaN(this.value)) return 'nan';
    if (this.value === Number.POSITIVE_INFINITY) return 'inf';
    if (this.value === Number.NEGATIVE_INFINITY) return '-inf';
    if (Object.is(this.value, -0)) return '-0.';
    return this.value.toExponential();
  }
}
/** Epoch milliseconds as a DateTime64(3) (negative and far-future ones too). */
export class Ms {
  constructor(readonly ms: number) {}
}
/** A SQL expression taken as it is (huge integers, casts). */
export class Raw {
  constructor(readonly sql: string) {}
}

type Value = string | Buffer | number | Float | Ms | Raw | null | Value[] | { [key: string]: Value };

function literal(value: Value): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return literal(Buffer.from(value, 'utf8'));
  if (Buffer.isBuffer(value)) return `unhex('${value.toString('hex')}')`;
  if (typeof value === 'number') return new Float(value).sql();
  if (value instanceof Float) return value.sql();
  if (value instanceof Raw) return value.sql;
  if (value instanceof Ms) return `fromUnixTimestamp64Milli(toInt64(${Math.trunc(value.ms)}), 'UTC')`;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  const entries = Object.entries(value);
  if (entries.length === 0) return 'map()';
  return `map(${entries.map(([k, v]) => `${literal(k)}, ${literal(v)}`).join(', ')})`;
}

/** Writes `rows` (each with the same columns) into `table` of `projectId` as SQL literals. */
export async function insertLiteralRows(
  ch: ClickHouse,
  table: string,
  projectId: string,
  rows: readonly Record<string, Value>[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = ['project_id', ...Object.keys(rows[0]!)];
  const tuples = rows.map(
    (row) => `(${[literal(projectId), ...columns.slice(1).map((c) => literal(row[c] ?? null))].join(', ')})`,
  );
  await ch.command(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`);
}

/** The ids the hostile rows share, so the tools that look things up by id find them. */
export const HOSTILE_IDS = {
  user_id: 'hostile_user',
  session_id: 'hostile_session',
  trace_id: 'a1'.repeat(16),
  event_id: 'hostile_crash',
  signature: '0123456789abcdef',
  experiment_key: 'hostile_exp',
  metric: 'app_start_ms',
  event_name: 'purchase',
  version: '9.9.9',
} as const;

/** Bytes that are not UTF-8: a lone surrogate as CESU-8, a stray 0xFF, a cut 3-byte sequence. */
const NOT_UTF8 = [
  Buffer.from([0x78, 0xed, 0xa0, 0x80]),
  Buffer.from([0xff, 0x78]),
  Buffer.from([0x78, 0xe2, 0x82]),
];
const LONG = 'L'.repeat(10_000);
/** Strings every text column gets in turn. */
const STRINGS: Value[] = ['', LONG, ...NOT_UTF8, '\u0000\u001b[31m\u202e', '{"found":true}'];
/** Floats every float column gets in turn. */
const FLOATS = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  -0,
  -5,
  5e-324,
  1e-300,
  0,
  2,
].map((v) => new Float(v));

/** Sample rates the engine stores (the weight columns divide by them). */
const SAMPLE_RATES = [
  0,
  -1,
  2,
  1e308,
  -0,
  0.5,
  1e-300,
  1e-3,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
].map((v) => new Float(v));

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;
/** Enough rows that every listed value appears in every column at least once. */
const ROWS = Math.max(STRINGS.length, FLOATS.length) + 2;

/** JSON text columns (frames, breadcrumbs, properties): not JSON, wrong shapes, extreme values. */
function jsonTexts(): Value[] {
  let deep = '1';
  for (let i = 0; i < 5000; i++) deep = `{"a":${deep}}`;
  return [
    '',
    'not json',
    '{"a":1}',
    '[1,"x",null,{}]',
    deep,
    `[${'['.repeat(3000)}${']'.repeat(3000)}]`,
    '[{"function":123,"file":null,"line":-1}]',
    '[{"function":"f","file":"a.js","line":1e400,"column":-9223372036854775809,"in_app":"yes"}]',
    '[{"function":"f","file":"a.js","line":9007199254740993,"column":1.5}]',
    '[{"timestamp":"not a time","category":"c","message":"m"}]',
    '[{"timestamp":"2026-01-01T00:00:00Z","category":"","message":"","level":null}]',
    '[{"function":"f","file":"a.js","symbolicated":"maybe"}]',
    '{"utm_source":{"x":[1e400]},"experiment_key":"hostile_exp","variant":1e308,"__proto__":{"p":1}}',
    Buffer.concat([Buffer.from('{"utm_source":"'), NOT_UTF8[0]!, Buffer.from('"}')]),
    `{"k":"${LONG}"}`,
  ];
}

/**
 * Writes hostile rows into every table the core's tools read, for `projectId`, around `nowMs`
 * (within every default window) and at the edges of the DateTime64 range.
 */
export async function insertHostileRows(ch: ClickHouse, projectId: string, nowMs: number): Promise<void> {
  const I = HOSTILE_IDS;
  const json = jsonTexts();
  const edgeTimes = [new Ms(Date.parse('1900-01-01T00:00:00Z')), new Ms(Date.parse('2299-12-31T00:00:00Z'))];
  // Mostly within every default window; one row in seven at an end of the DateTime64 range.
  const times = (i: number) =>
    pick(
      [
        ...[nowMs - 60_000, nowMs - 3_600_000, nowMs - 86_400_000 * 3, nowMs - 1, nowMs + 1000].map(
          (ms) => new Ms(ms),
        ),
        ...edgeTimes,
      ],
      i,
    );
  const index = Array.from({ length: ROWS }, (_, i) => i);
  const text = (i: number, id: string) => (i % 3 === 0 ? id : pick(STRINGS, i));
  const maps = (i: number): Value =>
    pick<Value>(
      [
        {},
        { '': '', [LONG]: LONG },
        Object.fromEntries(Array.from({ length: 300 }, (_, k) => [`k${k}`, pick(STRINGS, k)])),
        { 'enduser.id': NOT_UTF8[0]!, 'service.name': NOT_UTF8[1]! },
      ],
      i,
    );

  await insertLiteralRows(
    ch,
    'logs',
    projectId,
    index.map((i) => ({
      timestamp: times(i),
      level: pick(['ERROR', 'INFO', '', 'LOUD', LONG, ...NOT_UTF8], i),
      message: pick(STRINGS, i),
      source: pick(['backend', 'device', '', NOT_UTF8[0]!], i),
      platform: pick(STRINGS, i),
      app_version: i % 2 === 0 ? I.version : pick(STRINGS, i),
      user_id: text(i, I.user_id),
      session_id: text(i, I.session_id),
      device_id: pick(STRINGS, i),
      trace_id: i % 2 === 0 ? I.trace_id : pick(STRINGS, i),
      span_id: pick(STRINGS, i),
      event_id: text(i, I.event_id),
      attributes: maps(i),
    })),
  );
  await insertLiteralRows(
    ch,
    'crashes',
    projectId,
    [...index, ROWS, ROWS + 1].map((i) => ({
      timestamp: i >= ROWS ? edgeTimes[i - ROWS]! : times(i),
      event_id: i === 0 ? I.event_id : `${I.event_id}_${i}`,
      signature: i % 2 === 0 ? I.signature : pick(STRINGS, i),
      error_type: pick(STRINGS, i),
      message: pick(STRINGS, i),
      frames: pick(json, i),
      breadcrumbs: pick(json, i + 3),
      platform: pick(['ios', 'web', 'android', ...STRINGS], i),
      app_version: i % 2 === 0 ? I.version : pick(STRINGS, i),
      device_os: pick(STRINGS, i),
      user_id: text(i, I.user_id),
      session_id: text(i, I.session_id),
    })),
  );
  await insertLiteralRows(
    ch,
    'crash_symbolications',
    projectId,
    index.map((i) => ({
      event_id: i === 0 ? I.event_id : `${I.event_id}_${i}`,
      frames: pick(json, i + 5),
      symbolicated: new Raw(String(pick([0, 1, 255, 7], i))),
      updated_at: times(i),
    })),
  );
  await insertLiteralRows(
    ch,
    'spans',
    projectId,
    [...index, ROWS, ROWS + 1].map((i) => ({
      start_time: i >= ROWS ? edgeTimes[i - ROWS]! : times(i),
      trace_id: i % 2 === 0 ? I.trace_id : pick([...STRINGS, 'f'.repeat(32)], i),
      span_id: pick(['b'.repeat(16), 'c'.repeat(16), ...STRINGS], i),
      parent_span_id: pick(['', 'b'.repeat(16), 'd'.repeat(16), ...STRINGS], i),
      kind: pick(STRINGS, i),
      status: pick(['ok', 'error', 'unset', ...STRINGS], i),
      operation: pick(['GET /', ...STRINGS], i),
      service: pick(STRINGS, i),
      duration_ms: pick(FLOATS, i),
      attributes: maps(i),
      user_id: text(i, I.user_id),
      session_id: text(i, I.session_id),
      // NaN, the infinities and rates so small their inverse is infinite cannot be stored at all:
      // the engine refuses the insert computing the weight columns (ingest refuses them first).
      sample_rate: pick(SAMPLE_RATES, i),
    })),
  );
  await insertLiteralRows(
    ch,
    'metrics',
    projectId,
    index.map((i) => ({
      name: pick([I.metric, 'memory_mb', 'fps', ...STRINGS], i),
      timestamp: times(i),
      value: pick(FLOATS, i),
      unit: pick(STRINGS, i),
      platform: pick(['ios', ...STRINGS], i),
      app_version: i % 2 === 0 ? I.version : pick(STRINGS, i),
      session_id: text(i, I.session_id),
      user_id: text(i, I.user_id),
      attributes: maps(i),
    })),
  );
  await insertLiteralRows(
    ch,
    'events',
    projectId,
    index.map((i) => ({
      event_name: pick([I.event_name, 'app_open', '$exposure', ...STRINGS], i),
      timestamp: times(i),
      user_id: text(i, I.user_id),
      session_id: text(i, I.session_id),
      platform: pick(['ios', ...STRINGS], i),
      app_version: i % 2 === 0 ? I.version : pick(STRINGS, i),
      properties: pick(json, i),
    })),
  );
  await insertLiteralRows(
    ch,
    'feedback',
    projectId,
    index.map((i) => ({
      timestamp: times(i),
      feedback_id: pick(STRINGS, i),
      user_id: text(i, I.user_id),
      session_id: text(i, I.session_id),
      message: pick(['checkout', ...STRINGS], i),
      rating: i % 5 === 4 ? null : pick(FLOATS, i),
      platform: pick(STRINGS, i),
      app_version: i % 2 === 0 ? I.version : pick(STRINGS, i),
    })),
  );
  await insertLiteralRows(
    ch,
    'sessions',
    projectId,
    index.map((i) => ({
      session_id: i === 0 ? I.session_id : `${I.session_id}_${String(pick(STRINGS, i)).slice(0, 50)}${i}`,
      user_id: text(i, I.user_id),
      started_at: pick([...edgeTimes, times(i)], i),
      ended_at: pick([null, ...edgeTimes, new Ms(nowMs - 7_200_000), times(i)], i),
      status: pick(['ok', 'crashed', 'anr', 'abnormal', ...STRINGS], i),
      platform: pick(['ios', ...STRINGS], i),
      app_version: i % 2 === 0 ? I.version : pick(STRINGS, i),
      ingested_at: times(i),
    })),
  );
  await insertLiteralRows(
    ch,
    'experiments',
    projectId,
    index.map((i) => ({
      experiment_key: i === 0 ? I.experiment_key : pick(STRINGS, i),
      goal_event: pick([I.event_name, ...STRINGS], i),
      variants: pick<Value>(
        [[], ['a'], ['a', 'a'], Array.from({ length: 500 }, (_, k) => `v${k}`), STRINGS],
        i,
      ),
      baseline: pick(['a', ...STRINGS], i),
      updated_at: times(i),
    })),
  );
  await insertLiteralRows(
    ch,
    'debug_files',
    projectId,
    index.map((i) => ({
      file_id: `f${i}`,
      kind: pick(['sourcemap', 'breakpad', 'dsym', 'so', ...STRINGS], i),
      platform: pick(['ios', 'android', 'web', ...STRINGS], i),
      name: pick(STRINGS, i),
      release: pick(['', I.version, ...STRINGS], i),
      debug_id: pick(STRINGS, i),
      module: pick(STRINGS, i),
      sha256: pick(['0'.repeat(64), ...STRINGS], i),
      size_bytes: new Raw(pick(['18446744073709551615', '0', '9007199254740993'], i)),
      uploaded_at: pick([...edgeTimes, times(i)], i),
    })),
  );
}
