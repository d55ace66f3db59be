// OTLP/HTTP logs (JSON as sent, or protobuf decoded to the same shape) mapped to our log records
// (docs/ingest.md, "OTLP traces, logs and metrics"). Each field is checked once, as it is read,
// against the rules the batch format holds (field-rules.ts); the records are not checked again
// (validate/mapped-records.ts).

import { TEXT_MAX } from '../field-rules';
import { BodyPath } from '../json/json-path';
import { idAt, msOf, timeAt } from './otlp-fields';
import {
  type FieldSources,
  type OtlpObject,
  type OtlpOutput,
  objectAt,
  objectsOf,
  requestObject,
  stringAt,
} from './otlp-shape';
import {
  attributesAt,
  checkAttributeCount,
  idFromAttributes,
  resourceOf,
  SESSION_KEYS,
  textOf,
  USER_KEYS,
} from './otlp-values';

const LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;
const MAX_SEVERITY = 24;

/**
 * OTLP severity numbers in groups of four: 1-8 TRACE and DEBUG, 9-12 INFO, 13-16 WARN, 17-20
 * ERROR, 21-24 FATAL. Without a number, the text when it names one of our levels; else INFO.
 */
export function levelOf(number: number | undefined, textLevel: string | undefined): (typeof LEVELS)[number] {
  if (number !== undefined && number >= 1 && number <= MAX_SEVERITY)
    return LEVELS[Math.max(0, Math.ceil(number / 4) - 2)]!;
  const named = textLevel?.trim().toUpperCase();
  if (named === 'WARNING') return 'WARN';
  if (named === 'TRACE') return 'DEBUG';
  return (LEVELS as readonly string[]).includes(named ?? '') ? (named as (typeof LEVELS)[number]) : 'INFO';
}

/** severityNumber: 0 (unspecified) to 24, or absent; anything else is a problem. */
function severityAt(log: OtlpObject, path: BodyPath, out: OtlpOutput): number | undefined {
  const value = log.severityNumber;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SEVERITY)
    return value;
  // The JSON encoding may name the enum value (SEVERITY_NUMBER_WARN).
  if (typeof value === 'string' && value.startsWith('SEVERITY_NUMBER_')) return SEVERITY_NAMES[value] ?? 0;
  out.problem(path.child('severityNumber'), `expected 0-${MAX_SEVERITY} or a SEVERITY_NUMBER_* name`);
  return undefined;
}

const SEVERITY_NAMES: Record<string, number> = Object.fromEntries(
  ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'].flatMap((name, group) =>
    ['', '2', '3', '4'].map((n, i) => [`SEVERITY_NUMBER_${name}${n}`, group * 4 + i + 1]),
  ),
);

/** Where a log record's fields come from in its OTLP log record, by the time it was given. */
const LOG_FIELDS: FieldSources = {
  timestamp: ['timeUnixNano'],
  level: ['severityNumber'],
  message: ['body'],
  trace_id: ['traceId'],
  span_id: ['spanId'],
  user_id: ['attributes'],
  session_id: ['attributes'],
  attributes: ['attributes'],
};
const OBSERVED_LOG_FIELDS: FieldSources = { ...LOG_FIELDS, timestamp: ['observedTimeUnixNano'] };

function logRecord(
  log: OtlpObject,
  path: BodyPath,
  service: string | undefined,
  out: OtlpOutput,
): [Record<string, unknown>, FieldSources] | undefined {
  const before = out.problemCount;
  // The record's time, else (absent or 0: unknown) when the collector observed it.
  let time = timeAt(log, 'timeUnixNano', path, out, { required: false, zeroIsAbsent: true });
  const observed = time === undefined && out.problemCount === before;
  if (observed) {
    time = timeAt(log, 'observedTimeUnixNano', path, out, { required: false, zeroIsAbsent: true });
    if (time === undefined && out.problemCount === before)
      out.problem(
        path.child('timeUnixNano'),
        'required (or observedTimeUnixNano): a time in nanoseconds since 1970',
      );
  }
  const severity = severityAt(log, path, out);
  const severityText = stringAt(log, 'severityText', path, out);
  const body = objectAt(log, 'body', path, out);
  const message = body ? textOf(body, path.child('body'), out, TEXT_MAX.message) : undefined;
  const recordAttributes = attributesAt(log, 'attributes', path, out);
  const attributes = { ...(service ? { 'service.name': service } : {}), ...recordAttributes };
  checkAttributeCount(
    attributes,
    path.child('attributes'),
    out,
    service ? ["the resource's service.name"] : [],
  );
  const traceId = idAt(log, 'traceId', 32, path, out, false);
  const spanId = idAt(log, 'spanId', 16, path, out, false);
  const user = idFromAttributes(recordAttributes, USER_KEYS, log, path, out);
  const session = idFromAttributes(recordAttributes, SESSION_KEYS, log, path, out);
  if (out.problemCount > before) return undefined;
  const record = {
    timestamp: msOf(time!),
    level: levelOf(severity, severityText),
    message: message ?? '',
    source: 'backend',
    ...(traceId ? { trace_id: traceId } : {}),
    ...(spanId ? { span_id: spanId } : {}),
    ...(user ? { user_id: user } : {}),
    ...(session ? { session_id: session } : {}),
    ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
  };
  return [record, observed ? OBSERVED_LOG_FIELDS : LOG_FIELDS];
}

/**
 * Our log records for an OTLP logs request, into `out`: the body is the message (text, or the
 * JSON of a structured body), the resource's service.name kept as an attribute, trace and span ids
 * when the record has them (all zeros: none). The time is the record's, else when the collector
 * observed it. Yields after each record, so that the caller can pause between slices.
 */
export function* logsFromOtlp(body: unknown, out: OtlpOutput): Generator<void> {
  const request = requestObject(body, 'an OTLP ExportLogsServiceRequest');
  for (const [resourceLogs, resourcePath] of objectsOf(request, 'resourceLogs', BodyPath.ROOT, out)) {
    const service = resourceOf(resourceLogs, resourcePath, out).attributes['service.name'];
    for (const [scope, scopePath] of objectsOf(resourceLogs, 'scopeLogs', resourcePath, out)) {
      for (const [log, logPath] of objectsOf(scope, 'logRecords', scopePath, out)) {
        const mapped = logRecord(log, logPath, service, out);
        if (mapped) out.add(mapped[0], logPath, mapped[1]);
        yield;
      }
    }
  }
}
