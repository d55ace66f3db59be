import { keyedRecord } from '@svc/tool-kit';
import { z } from 'zod';
import { ALL_ZEROS, HEX_ID, inTimeRange, isSampleRate, MAX_ATTRIBUTES, TEXT_MAX } from './field-rules';
import {
  MAX_FRAME_POSITION,
  MAX_METRIC_MAGNITUDE,
  MAX_PROPERTIES_DEPTH,
  MAX_RATING,
  MAX_READ_SPAN_DURATION_MS,
  MIN_SAMPLE_RATE,
} from './value-bounds';

// The ingest format (docs/ingest.md), one strict schema per record type. Strict objects
// reject unknown keys, which is how a `project_id` smuggled into a record is refused: records
// always land in the project of the ingest key.

/** ISO 8601 with a zone, or epoch milliseconds; parsed to epoch ms. */
export const timestamp = z
  .union([z.iso.datetime({ offset: true }).transform((v) => Date.parse(v)), z.number().int()])
  .refine(inTimeRange, 'must be between 2000 and 2100');

const text = (max: number) => z.string().min(1).max(max);
/**
 * An id is trimmed where it is stored, as the tools trim the ids they are asked for: one sent with
 * whitespace around it stays findable, and a blank one is refused (no tool could ask for it).
 */
const id = z.string().trim().min(1).max(TEXT_MAX.id);

/** An id of `length` hex characters; all zeros is W3C's "invalid id", never a real one. */
const hex = (length: keyof typeof HEX_ID) =>
  z
    .string()
    .regex(HEX_ID[length], `must be ${length} hex characters`)
    .refine((v) => !ALL_ZEROS.test(v), 'must not be all zeros (an invalid id)')
    .transform((v) => v.toLowerCase());

/**
 * Free-form attributes; scalar values are kept as strings. Any key is data (`constructor` too); a
 * `__proto__` key is dropped (keyedRecord).
 */
const attributes = keyedRecord(
  text(TEXT_MAX.attributeKey),
  z.union([z.string().max(TEXT_MAX.attributeValue), z.number(), z.boolean()]),
)
  .refine((a) => Object.keys(a).length <= MAX_ATTRIBUTES, `at most ${MAX_ATTRIBUTES} attributes`)
  .transform((a) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, String(v)])));

export const logLevel = z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']);

export const logRecord = z.strictObject({
  timestamp,
  level: logLevel,
  message: z.string().max(TEXT_MAX.message),
  source: z.enum(['backend', 'device']),
  platform: text(TEXT_MAX.platform).optional(),
  app_version: text(TEXT_MAX.appVersion).optional(),
  user_id: id.optional(),
  session_id: id.optional(),
  device_id: id.optional(),
  trace_id: hex(32).optional(),
  span_id: hex(16).optional(),
  event_id: id.optional(),
  attributes: attributes.optional(),
});

/** A SHA-1 build id is 40 hex digits, a UUID 36 with dashes: room for longer `--build-id=0x...`. */
const DEBUG_ID_MAX = 128;

const frame = z.strictObject({
  function: z.string().max(1024),
  file: z.string().max(1024),
  line: z.number().int().nonnegative().max(MAX_FRAME_POSITION).optional(),
  column: z.number().int().nonnegative().max(MAX_FRAME_POSITION).optional(),
  in_app: z.boolean().optional(),
  address: z.string().max(64).optional(),
  module: z.string().max(1024).optional(),
  /**
   * The module's build: its Mach-O UUID or ELF GNU build id as the OS prints it, or a Breakpad
   * module id. A native frame with one is symbolicated only from a file of that id.
   */
  debug_id: z
    .string()
    .max(DEBUG_ID_MAX)
    .regex(/^[0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)*$/, 'must be hex digits, dashes allowed between them')
    .optional(),
});

const breadcrumb = z.strictObject({
  timestamp,
  category: text(200),
  message: z.string().max(4096),
  level: text(20).optional(),
});

export const crashRecord = z.strictObject({
  event_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9_-]'),
  timestamp,
  error_type: text(500),
  message: z.string().max(16384),
  /** Top of the stack (the crashing frame) first. */
  frames: z.array(frame).max(512),
  breadcrumbs: z.array(breadcrumb).max(200),
  signature: hex(16).optional(),
  platform: text(50),
  app_version: text(100),
  device_os: text(100),
  user_id: id.optional(),
  session_id: id.optional(),
});

export const metricRecord = z.strictObject({
  timestamp,
  name: text(TEXT_MAX.metricName),
  value: z.number().finite().min(-MAX_METRIC_MAGNITUDE).max(MAX_METRIC_MAGNITUDE),
  unit: text(TEXT_MAX.unit).optional(),
  platform: text(50).optional(),
  app_version: text(TEXT_MAX.appVersion).optional(),
  session_id: id.optional(),
  user_id: id.optional(),
  attributes: attributes.optional(),
});

export const spanRecord = z.strictObject({
  trace_id: hex(32),
  span_id: hex(16),
  parent_span_id: hex(16).optional(),
  kind: text(TEXT_MAX.kind),
  status: z.enum(['ok', 'error', 'unset']),
  operation: text(TEXT_MAX.operation),
  service: text(TEXT_MAX.service).optional(),
  start_time: timestamp,
  /** Also at most the configured span retention (validate-batch.ts). */
  duration_ms: z.number().finite().nonnegative().max(MAX_READ_SPAN_DURATION_MS),
  attributes: attributes.optional(),
  user_id: id.optional(),
  session_id: id.optional(),
  /** The head-sampling rate in force; 0 (like absent) means everything was sampled. */
  sample_rate: z
    .number()
    .refine(isSampleRate, `must be between ${MIN_SAMPLE_RATE} and 1 (or 0: everything sampled)`)
    .default(1)
    .transform((r) => (r === 0 ? 1 : r)),
});

const MAX_PROPERTIES_CHARS = 16384;

/**
 * What is wrong with event properties, checked without recursion (a 2,000-deep value must not
 * overflow the stack): nesting, JSON values only, then the size of their JSON text.
 */
function propertiesProblem(properties: Record<string, unknown>): string | undefined {
  const stack: [unknown, number][] = [[properties, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (depth > MAX_PROPERTIES_DEPTH) return `nested more than ${MAX_PROPERTIES_DEPTH} levels deep`;
    if (typeof value === 'number' && !Number.isFinite(value)) return 'numbers must be finite';
    if (typeof value !== 'object' || value === null) {
      if (!['string', 'number', 'boolean'].includes(typeof value) && value !== null)
        return 'values must be JSON';
      continue;
    }
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  if (JSON.stringify(properties).length > MAX_PROPERTIES_CHARS) {
    // The key to shorten is what the sender needs: the largest property is named.
    const [key, chars] = Object.entries(properties)
      .map(([k, v]) => [k, JSON.stringify(v).length] as const)
      .reduce((a, b) => (b[1] > a[1] ? b : a));
    return `at most ${MAX_PROPERTIES_CHARS} characters as JSON; the largest property, ${JSON.stringify(key)}, has ${chars}`;
  }
  return undefined;
}

export const eventRecord = z.strictObject({
  timestamp,
  event_name: text(200),
  user_id: id,
  session_id: id.optional(),
  platform: text(50).optional(),
  app_version: text(100).optional(),
  // Any key is data, at every level; a `__proto__` key of the properties object is dropped.
  properties: keyedRecord(z.string().max(200), z.unknown())
    .superRefine((p, ctx) => {
      const problem = propertiesProblem(p);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
});

export const feedbackRecord = z.strictObject({
  feedback_id: id.optional(),
  timestamp,
  user_id: id,
  session_id: id.optional(),
  message: text(16384),
  rating: z.number().finite().min(0).max(MAX_RATING).optional(),
  platform: text(50).optional(),
  app_version: text(100).optional(),
});

export const sessionRecord = z
  .strictObject({
    session_id: id,
    user_id: id,
    started_at: timestamp,
    ended_at: timestamp.optional(),
    status: z.enum(['ok', 'crashed', 'anr', 'abnormal']),
    platform: text(50),
    app_version: text(100),
  })
  .refine((s) => s.ended_at === undefined || s.ended_at >= s.started_at, {
    message: 'must not be before started_at',
    path: ['ended_at'],
  });

export const experimentRecord = z
  .strictObject({
    experiment_key: id,
    goal_event: text(200),
    variants: z.array(text(100)).min(2).max(20),
    baseline: text(100).optional(),
  })
  .refine((e) => e.baseline === undefined || e.variants.includes(e.baseline), {
    message: 'baseline must be one of the variants',
    path: ['baseline'],
  })
  .refine((e) => new Set(e.variants).size === e.variants.length, {
    message: 'variants must be unique',
    path: ['variants'],
  });

/** Each array of the batch body and the schema of its records. */
export const RECORD_SCHEMAS = {
  logs: logRecord,
  crashes: crashRecord,
  spans: spanRecord,
  metrics: metricRecord,
  events: eventRecord,
  feedback: feedbackRecord,
  sessions: sessionRecord,
  experiments: experimentRecord,
} as const;

export type RecordType = keyof typeof RECORD_SCHEMAS;
export const RECORD_TYPES = Object.keys(RECORD_SCHEMAS) as RecordType[];

export type LogRecord = z.output<typeof logRecord>;
export type CrashRecord = z.output<typeof crashRecord>;
export type SpanRecord = z.output<typeof spanRecord>;
export type MetricRecord = z.output<typeof metricRecord>;
export type EventRecord = z.output<typeof eventRecord>;
export type FeedbackRecord = z.output<typeof feedbackRecord>;
export type SessionRecord = z.output<typeof sessionRecord>;
export type ExperimentRecord = z.output<typeof experimentRecord>;

export interface ValidBatch {
  logs: LogRecord[];
  crashes: CrashRecord[];
  spans: SpanRecord[];
  metrics: MetricRecord[];
  events: EventRecord[];
  feedback: FeedbackRecord[];
  sessions: SessionRecord[];
  experiments: ExperimentRecord[];
}
