// OTLP/HTTP JSON logs mapped to our log records (docs/ingest.md, "OTLP"); they then go through
// the same validation as /ingest/v1/batch.

import {
  type AnyValue,
  attributesOf,
  first,
  type KeyValue,
  nanos,
  SESSION_KEYS,
  text,
  USER_KEYS,
} from './otlp-values';

interface OtlpLogRecord {
  timeUnixNano?: string | number;
  observedTimeUnixNano?: string | number;
  severityNumber?: number;
  severityText?: string;
  body?: AnyValue;
  attributes?: KeyValue[];
  traceId?: string;
  spanId?: string;
}

interface OtlpLogs {
  resourceLogs?: { resource?: { attributes?: KeyValue[] }; scopeLogs?: { logRecords?: OtlpLogRecord[] }[] }[];
}

const LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const;

/**
 * OTLP severity numbers in groups of four: 1-8 TRACE and DEBUG, 9-12 INFO, 13-16 WARN, 17-20
 * ERROR, 21-24 FATAL. Without a number, the text when it names one of our levels; else INFO.
 */
export function levelOf(number: number | undefined, textLevel: string | undefined): (typeof LEVELS)[number] {
  if (number !== undefined && number >= 1 && number <= 24)
    return LEVELS[Math.max(0, Math.ceil(number / 4) - 2)]!;
  const named = textLevel?.trim().toUpperCase();
  if (named === 'WARNING') return 'WARN';
  if (named === 'TRACE') return 'DEBUG';
  return (LEVELS as readonly string[]).includes(named ?? '') ? (named as (typeof LEVELS)[number]) : 'INFO';
}

/**
 * Our log records for an OTLP logs request: the body is the message (text, or the JSON of a
 * structured body), the resource's service.name kept as an attribute, trace and span ids when the
 * record has them. The time is the record's, else when the collector observed it.
 */
export function logsFromOtlp(body: unknown): unknown[] {
  const request = (body ?? {}) as OtlpLogs;
  const out: unknown[] = [];
  for (const resourceLogs of request.resourceLogs ?? []) {
    const service = attributesOf(resourceLogs.resource?.attributes)['service.name'];
    for (const scope of resourceLogs.scopeLogs ?? []) {
      for (const log of scope.logRecords ?? []) {
        const attributes = {
          ...(service ? { 'service.name': service } : {}),
          ...attributesOf(log.attributes),
        };
        const time = nanos(log.timeUnixNano) || nanos(log.observedTimeUnixNano);
        const user = first(attributes, USER_KEYS);
        const session = first(attributes, SESSION_KEYS);
        out.push({
          timestamp: time === undefined ? undefined : Number(time / 1_000_000n),
          level: levelOf(log.severityNumber, log.severityText),
          message: text(log.body) ?? '',
          source: 'backend',
          ...(log.traceId ? { trace_id: log.traceId.toLowerCase() } : {}),
          ...(log.spanId ? { span_id: log.spanId.toLowerCase() } : {}),
          ...(user ? { user_id: user } : {}),
          ...(session ? { session_id: session } : {}),
          ...(Object.keys(attributes).length > 0 ? { attributes } : {}),
        });
      }
    }
  }
  return out;
}
