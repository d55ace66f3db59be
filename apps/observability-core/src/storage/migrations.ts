import type { Migration } from '@svc/clickhouse';

// The core's tables (docs/architecture.md, "Storage"; docs/ingest.md). Every table leads its ORDER BY with
// project_id: tenant isolation is also locality. Absent optional strings are stored as '' (and
// returned as null) rather than Nullable, which ClickHouse handles faster. Times are
// DateTime64(3, 'UTC'). TTLs come from `retention` (applied afterwards by retention.ts, so a
// changed setting also reaches tables created earlier).

export interface Retention {
  /** Spans: 14 days by default (traces are the largest table), every other table 90. */
  spanDays: number;
  /** Every other table. */
  defaultDays: number;
}

export const DEFAULT_RETENTION: Retention = { spanDays: 14, defaultDays: 90 };

/** table -> the column its TTL counts from and which retention applies. */
export const TTL_COLUMNS: Record<string, { column: string; kind: keyof Retention }> = {
  logs: { column: 'timestamp', kind: 'defaultDays' },
  crashes: { column: 'timestamp', kind: 'defaultDays' },
  spans: { column: 'start_time', kind: 'spanDays' },
  metrics: { column: 'timestamp', kind: 'defaultDays' },
  events: { column: 'timestamp', kind: 'defaultDays' },
  feedback: { column: 'timestamp', kind: 'defaultDays' },
  sessions: { column: 'started_at', kind: 'defaultDays' },
  experiments: { column: 'updated_at', kind: 'defaultDays' },
  crash_symbolications: { column: 'updated_at', kind: 'defaultDays' },
};

function ttl(table: string, retention: Retention): string {
  const t = TTL_COLUMNS[table]!;
  const daysValue = retention[t.kind];
  if (!Number.isInteger(daysValue) || daysValue < 1)
    throw new Error(`retention ${t.kind} must be a positive integer`);
  return `TTL toDateTime(${t.column}) + toIntervalDay(${daysValue})`;
}

const TS = "DateTime64(3, 'UTC')";

/** The tables a batch writes to (ingest/schemas.ts RECORD_TYPES, checked by migrate.test.ts). */
const INGEST_TABLES = [
  'logs',
  'crashes',
  'spans',
  'metrics',
  'events',
  'feedback',
  'sessions',
  'experiments',
];

export function coreMigrations(retention: Retention = DEFAULT_RETENTION): Migration[] {
  return [
    {
      version: 1,
      name: 'logs',
      statements: [
        `CREATE TABLE IF NOT EXISTS logs (
          project_id LowCardinality(String),
          timestamp ${TS},
          level LowCardinality(String),
          message String,
          source LowCardinality(String),
          platform LowCardinality(String),
          app_version LowCardinality(String),
          user_id String,
          session_id String,
          device_id String,
          trace_id String,
          span_id String,
          event_id String,
          attributes Map(String, String),
          INDEX idx_message_ngram lower(message) TYPE ngrambf_v1(3, 65536, 2, 0) GRANULARITY 1,
          INDEX idx_trace_id trace_id TYPE bloom_filter(0.01) GRANULARITY 1,
          INDEX idx_user_id user_id TYPE bloom_filter(0.01) GRANULARITY 1,
          INDEX idx_session_id session_id TYPE bloom_filter(0.01) GRANULARITY 1,
          INDEX idx_event_id event_id TYPE bloom_filter(0.01) GRANULARITY 1
        ) ENGINE = MergeTree
        PARTITION BY toYYYYMM(timestamp)
        ORDER BY (project_id, timestamp)
        ${ttl('logs', retention)}`,
      ],
    },
    {
      version: 2,
      name: 'crashes',
      statements: [
        // frames and breadcrumbs are JSON text; a re-sent event (same id and time) collapses.
        `CREATE TABLE IF NOT EXISTS crashes (
          project_id LowCardinality(String),
          timestamp ${TS},
          event_id String,
          signature String,
          error_type String,
          message String,
          frames String,
          breadcrumbs String,
          platform LowCardinality(String),
          app_version LowCardinality(String),
          device_os LowCardinality(String),
          user_id String,
          session_id String,
          INDEX idx_event_id event_id TYPE bloom_filter(0.01) GRANULARITY 1,
          INDEX idx_signature signature TYPE bloom_filter(0.01) GRANULARITY 1,
          INDEX idx_user_id user_id TYPE bloom_filter(0.01) GRANULARITY 1
        ) ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(timestamp)
        ORDER BY (project_id, timestamp, event_id)
        ${ttl('crashes', retention)}`,
      ],
    },
    {
      version: 3,
      name: 'spans',
      statements: [
        // weight restores sampled-away traffic: error spans are always kept, so they count once.
        `CREATE TABLE IF NOT EXISTS spans (
          project_id LowCardinality(String),
          start_time ${TS},
          trace_id String,
          span_id String,
          parent_span_id String,
          kind LowCardinality(String),
          status LowCardinality(String),
          operation String,
          service LowCardinality(String),
          duration_ms Float64,
          attributes Map(String, String),
          user_id String,
          session_id String,
          sample_rate Float64,
          weight Float64 MATERIALIZED if(status = 'error' OR sample_rate <= 0, 1, 1 / sample_rate),
          INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
          INDEX idx_user_id user_id TYPE bloom_filter(0.01) GRANULARITY 1,
          INDEX idx_session_id session_id TYPE bloom_filter(0.01) GRANULARITY 1
        ) ENGINE = MergeTree
        PARTITION BY toYYYYMMDD(start_time)
        ORDER BY (project_id, start_time, trace_id)
        ${ttl('spans', retention)}`,
      ],
    },
    {
      version: 4,
      name: 'metrics',
      statements: [
        `CREATE TABLE IF NOT EXISTS metrics (
          project_id LowCardinality(String),
          name LowCardinality(String),
          timestamp ${TS},
          value Float64,
          unit LowCardinality(String),
          platform LowCardinality(String),
          app_version LowCardinality(String),
          session_id String,
          user_id String,
          attributes Map(String, String)
        ) ENGINE = MergeTree
        PARTITION BY toYYYYMM(timestamp)
        ORDER BY (project_id, name, timestamp)
        ${ttl('metrics', retention)}`,
      ],
    },
    {
      version: 5,
      name: 'events',
      statements: [
        // utm_* and the exposure fields are lifted out of properties once, at insert, so funnel,
        // retention and experiment filters read plain columns.
        `CREATE TABLE IF NOT EXISTS events (
          project_id LowCardinality(String),
          event_name LowCardinality(String),
          timestamp ${TS},
          user_id String,
          session_id String,
          platform LowCardinality(String),
          app_version LowCardinality(String),
          properties String,
          utm_source LowCardinality(String) MATERIALIZED JSONExtractString(properties, 'utm_source'),
          utm_medium LowCardinality(String) MATERIALIZED JSONExtractString(properties, 'utm_medium'),
          utm_campaign LowCardinality(String) MATERIALIZED JSONExtractString(properties, 'utm_campaign'),
          experiment_key LowCardinality(String) MATERIALIZED JSONExtractString(properties, 'experiment_key'),
          variant LowCardinality(String) MATERIALIZED JSONExtractString(properties, 'variant'),
          INDEX idx_user_id user_id TYPE bloom_filter(0.01) GRANULARITY 1
        ) ENGINE = MergeTree
        PARTITION BY toYYYYMM(timestamp)
        ORDER BY (project_id, event_name, timestamp, user_id)
        ${ttl('events', retention)}`,
      ],
    },
    {
      version: 6,
      name: 'feedback',
      statements: [
        `CREATE TABLE IF NOT EXISTS feedback (
          project_id LowCardinality(String),
          timestamp ${TS},
          feedback_id String,
          user_id String,
          session_id String,
          message String,
          rating Nullable(Float64),
          platform LowCardinality(String),
          app_version LowCardinality(String)
        ) ENGINE = ReplacingMergeTree
        PARTITION BY toYYYYMM(timestamp)
        ORDER BY (project_id, timestamp, feedback_id)
        ${ttl('feedback', retention)}`,
      ],
    },
    {
      version: 7,
      name: 'sessions',
      statements: [
        // A session is reported at start and again when it ends: the latest report wins.
        `CREATE TABLE IF NOT EXISTS sessions (
          project_id LowCardinality(String),
          session_id String,
          user_id String,
          started_at ${TS},
          ended_at Nullable(${TS}),
          status LowCardinality(String),
          platform LowCardinality(String),
          app_version LowCardinality(String),
          ingested_at ${TS}
        ) ENGINE = ReplacingMergeTree(ingested_at)
        ORDER BY (project_id, session_id)
        ${ttl('sessions', retention)}`,
      ],
    },
    {
      version: 8,
      name: 'experiments',
      statements: [
        `CREATE TABLE IF NOT EXISTS experiments (
          project_id LowCardinality(String),
          experiment_key String,
          goal_event String,
          variants Array(String),
          baseline String,
          updated_at ${TS}
        ) ENGINE = ReplacingMergeTree(updated_at)
        ORDER BY (project_id, experiment_key)
        ${ttl('experiments', retention)}`,
      ],
    },
    {
      version: 9,
      name: 'crash_symbolications',
      statements: [
        // One row per crash once symbolication ran (the latest attempt wins: re-running is
        // idempotent). frames is a JSON array of the crash's frames in order, each with
        // `symbolicated` and, when false, a `reason`. crash.get reads it beside the raw frames.
        `CREATE TABLE IF NOT EXISTS crash_symbolications (
          project_id LowCardinality(String),
          event_id String,
          frames String,
          symbolicated UInt8,
          updated_at ${TS}
        ) ENGINE = ReplacingMergeTree(updated_at)
        ORDER BY (project_id, event_id)
        ${ttl('crash_symbolications', retention)}`,
      ],
    },
    {
      version: 10,
      name: 'debug_files',
      statements: [
        // Metadata of uploaded debug files; the bytes live on disk under their sha256
        // (symbolication/debug-file-store.ts). Re-uploading the same logical file (project, kind,
        // platform, release, name) keeps its file_id: the latest upload wins. No TTL: a release
        // keeps crashing long after its symbols were uploaded.
        `CREATE TABLE IF NOT EXISTS debug_files (
          project_id LowCardinality(String),
          file_id String,
          kind LowCardinality(String),
          platform LowCardinality(String),
          name String,
          release String,
          debug_id String,
          module String,
          sha256 String,
          size_bytes UInt64,
          uploaded_at ${TS}
        ) ENGINE = ReplacingMergeTree(uploaded_at)
        ORDER BY (project_id, platform, kind, file_id)`,
        // crash.symbolicate requests (symbolication/jobs.ts). Append-only: a request is a row with
        // done = 0; the worker appends done = 1 with the same request_id when it is handled, so
        // pending work is re-derived after a restart. Unhandled requests expire after 7 days.
        `CREATE TABLE IF NOT EXISTS symbolication_jobs (
          project_id LowCardinality(String),
          event_id String,
          request_id String,
          requested_at ${TS},
          done UInt8
        ) ENGINE = MergeTree
        ORDER BY (project_id, event_id, request_id)
        TTL toDateTime(requested_at) + toIntervalDay(7)`,
      ],
    },
    {
      version: 11,
      name: 'logs_user_summary',
      statements: [
        // user.detail's per-user totals (count, first/last seen, platforms, versions) without
        // scanning every log line of a very active user. The aggregates must stay exactly those of
        // tools/users/channel-summary.ts, or ClickHouse will not pick the projection.
        `ALTER TABLE logs ADD PROJECTION IF NOT EXISTS p_user_summary (
          SELECT project_id, user_id, count(), min(timestamp), max(timestamp),
            groupUniqArrayIf(100)(platform, platform != ''),
            groupUniqArrayIf(100)(app_version, app_version != '')
          GROUP BY project_id, user_id)`,
        // Lines stored before this migration get the projection in the background.
        'ALTER TABLE logs MATERIALIZE PROJECTION p_user_summary',
      ],
    },
    {
      version: 12,
      name: 'logs_user_projections_fine',
      statements: [
        // user.detail for a quiet user among millions of lines (bench: ~100 lines in 10M). The
        // summary projection of version 11 again, with 256-row granules: a user's states are a few
        // hundred rows to read instead of 8192 per part (the groupUniqArray states dominated).
        // Same aggregates as tools/users/channel-summary.ts, or ClickHouse will not pick it.
        `ALTER TABLE logs ADD PROJECTION IF NOT EXISTS p_user_summary_fine (
          SELECT project_id, user_id, count(), min(timestamp), max(timestamp),
            groupUniqArrayIf(100)(platform, platform != ''),
            groupUniqArrayIf(100)(app_version, app_version != '')
          GROUP BY project_id, user_id)
          WITH SETTINGS (index_granularity = 256)`,
        'ALTER TABLE logs MATERIALIZE PROJECTION p_user_summary_fine',
        'ALTER TABLE logs DROP PROJECTION IF EXISTS p_user_summary',
        // A user's lines in time order (sort key only): the timestamp of their (limit + 1)-th
        // newest line comes from a few small granules here instead of the user_id bloom filter
        // over the whole table (tools/users/detail-channels.ts, newestLogsOnly).
        `ALTER TABLE logs ADD PROJECTION IF NOT EXISTS p_user_rows (
          SELECT _part_offset ORDER BY project_id, user_id, timestamp)
          WITH SETTINGS (index_granularity = 1024)`,
        'ALTER TABLE logs MATERIALIZE PROJECTION p_user_rows',
      ],
    },
    {
      version: 13,
      name: 'events_user_key',
      statements: [
        // analytics.retention/cohorts group 10M events by user: reading a stored 64-bit hash is
        // about a quarter cheaper than hashing user_id strings on every query. Parts written
        // before this migration compute it from user_id on read until the mutation rewrites them.
        'ALTER TABLE events ADD COLUMN IF NOT EXISTS user_key UInt64 MATERIALIZED cityHash64(user_id)',
        'ALTER TABLE events MATERIALIZE COLUMN user_key',
      ],
    },
    {
      version: 14,
      name: 'crashes_signature_history',
      statements: [
        // crash.aggregate / crash.stats tell when each listed issue was first and last seen and in
        // which versions (tools/crash/signature-history.ts): one small row per signature here
        // instead of every crash of the project. A ReplacingMergeTree keeps a projection only when
        // told what to do with it on deduplicating merges: rebuild it (a re-sent crash changes no
        // min, max, argMin or argMax anyway). The aggregates must stay exactly those of
        // signature-history.ts, or ClickHouse will not pick the projection.
        "ALTER TABLE crashes MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild'",
        `ALTER TABLE crashes ADD PROJECTION IF NOT EXISTS p_signature_history (
          SELECT project_id, signature, min(timestamp), max(timestamp),
            argMin(app_version, (timestamp, app_version)), argMax(app_version, (timestamp, app_version))
          GROUP BY project_id, signature)`,
        'ALTER TABLE crashes MATERIALIZE PROJECTION p_signature_history',
      ],
    },
    {
      version: 15,
      name: 'ingest_replay_guard',
      statements: [
        // A retried or replayed ingest batch never adds its rows twice (ingest/replay/replay-guard.ts).
        // First line: every accepted request is remembered here for a day, by its signature and
        // by its Idempotency-Key, and a repeat is answered before anything is written. Second
        // line, for a retry after a partial failure: each insert carries a deduplication token
        // of the request, and the tables remember the last tokens they took (MergeTree keeps no
        // such memory unless told to; replicated tables on a server do by default).
        `CREATE TABLE IF NOT EXISTS ingest_requests (
          key_id String,
          request_key String,
          project_id String,
          body_sha256 String,
          accepted String,
          received_at DateTime64(3, 'UTC')
        ) ENGINE = ReplacingMergeTree(received_at)
        ORDER BY (key_id, request_key)
        TTL toDateTime(received_at) + toIntervalDay(1)`,
        ...INGEST_TABLES.map(
          (table) => `ALTER TABLE ${table} MODIFY SETTING non_replicated_deduplication_window = 10000`,
        ),
      ],
    },
    {
      version: 16,
      name: 'spans_trace_rows',
      statements: [
        // trace.get's fast path: a trace's spans by (project, trace id), from a small sorted index
        // of row offsets per part, instead of the trace_id bloom filter over every granule of the
        // project (spans are ordered by time). Sort key only, so it costs a few bytes per span.
        `ALTER TABLE spans ADD PROJECTION IF NOT EXISTS p_trace_rows (
          SELECT _part_offset ORDER BY project_id, trace_id)
          WITH SETTINGS (index_granularity = 1024)`,
        'ALTER TABLE spans MATERIALIZE PROJECTION p_trace_rows',
        // The bloom filter it replaces cost more than it saved: checked on every granule of the
        // project, it was most of trace.get's time.
        'ALTER TABLE spans DROP INDEX IF EXISTS idx_trace_id',
      ],
    },
    {
      version: 17,
      name: 'spans_metrics_scan_cost',
      statements: [
        // trace.aggregate and apm.stats read every row of the window (bench, 10M rows): a
        // dictionary-encoded operation groups about a quarter faster than strings, and time
        // columns stored as deltas (sorted within each part) read in a fifth of the bytes, which
        // is most of the time filter's cost. New parts get the codecs; merges rewrite old ones.
        'ALTER TABLE spans MODIFY COLUMN operation LowCardinality(String)',
        "ALTER TABLE spans MODIFY COLUMN start_time DateTime64(3, 'UTC') CODEC(Delta, LZ4)",
        "ALTER TABLE metrics MODIFY COLUMN timestamp DateTime64(3, 'UTC') CODEC(Delta, LZ4)",
      ],
    },
    {
      version: 18,
      name: 'spans_percentile_columns',
      statements: [
        // trace.aggregate's exact weighted percentiles (tools/trace/trace-aggregate.ts): each span's
        // histogram bucket and its weight in whole thousandths, computed once at insert instead of
        // on every read of the window's spans. The expressions must stay exactly those of
        // trace-aggregate.ts (its tests check the answers).
        `ALTER TABLE spans ADD COLUMN IF NOT EXISTS duration_bucket UInt16 MATERIALIZED
          toUInt16(least(toUInt32(bitShiftRight(reinterpretAsUInt64(duration_ms), 46)), 67392) * (duration_ms >= 0.0009765625)
            + 64831 * (duration_ms < 0.0009765625) - 64831)`,
        `ALTER TABLE spans ADD COLUMN IF NOT EXISTS weight_milli UInt64 MATERIALIZED
          toUInt64(round(if(status = 'error' OR sample_rate <= 0, 1, 1 / sample_rate) * 1000))`,
        'ALTER TABLE spans MATERIALIZE COLUMN duration_bucket',
        'ALTER TABLE spans MATERIALIZE COLUMN weight_milli',
      ],
    },
    {
      version: 19,
      name: 'spans_operation_day_histogram',
      statements: [
        // trace.aggregate's first pass over whole UTC days of its window: per (project, day,
        // operation, duration bucket) the sums it needs, kept by the engine as spans arrive. The
        // partial days at the window's edges are still read span by span: pass 1 reads a row per
        // operation and bucket a day instead of every span. The aggregates must stay exactly those
        // of trace-aggregate.ts, or the engine reads the spans.
        `ALTER TABLE spans ADD PROJECTION IF NOT EXISTS p_operation_day_histogram (
          SELECT project_id, toDate(start_time), operation, duration_bucket,
                 sum(weight), sumIf(weight, status = 'error'), count(), sum(weight_milli)
          GROUP BY project_id, toDate(start_time), operation, duration_bucket)`,
        'ALTER TABLE spans MATERIALIZE PROJECTION p_operation_day_histogram',
      ],
    },
    {
      version: 20,
      name: 'spans_trace_key',
      statements: [
        // trace.search by user or session keeps the spans of the traces it picked: a 64-bit hash of
        // the trace id is checked first for every span (PREWHERE), the id itself only where the
        // hash matched, for 15 MB per 10M spans. (A list of trace ids does not use p_trace_rows:
        // only trace_id = x does.)
        'ALTER TABLE spans ADD COLUMN IF NOT EXISTS trace_key UInt64 MATERIALIZED cityHash64(trace_id)',
        'ALTER TABLE spans MATERIALIZE COLUMN trace_key',
      ],
    },
    {
      version: 21,
      name: 'ingest_row_tokens',
      statements: [
        // Exactly once across crashes (ingest/store/stored-rows.ts): every row names the request it came
        // with (a 53-bit hash of the request's deduplication token for the table), stored in the
        // same insert as the row, so a retry of a request that was never acknowledged finds what
        // of it is stored, even when it went in merged with other requests' rows. Adding the
        // column rewrites nothing: rows stored before read 0, which no request's token is.
        ...INGEST_TABLES.map((table) => `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ingest_token UInt64`),
      ],
    },
    {
      version: 22,
      name: 'debug_files_readable',
      statements: [
        // Whether an uploaded file can map frames (symbolication/debug-files.ts): a dSYM or .so is
        // read when it is a Mach-O or ELF binary, not when it is anything else (a zip). Files
        // stored before read as they were then: every kind but dsym and so.
        "ALTER TABLE debug_files ADD COLUMN IF NOT EXISTS readable UInt8 DEFAULT kind NOT IN ('dsym', 'so')",
      ],
    },
  ];
}
