import type { RecordType } from '../schemas';

// Records an OTLP mapping made (otlp-traces.ts, otlp-logs.ts) are not checked again: the mapping
// checked each field it filled as it read it, against the rules of field-rules.ts, and refused the
// request naming the OTLP field. What it leaves to the format is done here: an id taken from an
// attribute is trimmed (as the schema trims ids), and a span's sample rate absent or 0 is 1. A
// record this cannot finish (an id that is blank once trimmed) returns undefined: the schema then
// decides and words the problem. Metrics have no finisher: their schema checks them.

type Mapped = Record<string, unknown>;

/** Thrown when the schema must decide; never leaves this module. */
const SCHEMA = Symbol('schema decides');

/** An id trimmed as the schema keeps it; blank once trimmed is the schema's to refuse. */
function trimmedId(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const id = (value as string).trim();
  if (id === '') throw SCHEMA;
  return id;
}

/** The mapping writes every key of a span (undefined where absent): the object is kept as is. */
function span(record: Mapped): Mapped {
  const user = trimmedId(record.user_id);
  const session = trimmedId(record.session_id);
  record.user_id = user;
  record.session_id = session;
  const rate = record.sample_rate as number | undefined;
  record.sample_rate = rate === undefined || rate === 0 ? 1 : rate;
  return record;
}

/** A log record names only the ids it has. */
function log(record: Mapped): Mapped {
  const user = trimmedId(record.user_id);
  const session = trimmedId(record.session_id);
  if (user !== undefined) record.user_id = user;
  if (session !== undefined) record.session_id = session;
  return record;
}

const FINISH: Partial<Record<RecordType, (record: Mapped) => Mapped>> = { spans: span, logs: log };

/**
 * A record an OTLP mapping made, as its schema would parse it; undefined when the schema must
 * decide (a type without a finisher, an id blank once trimmed).
 */
export function finishMapped(type: RecordType, record: unknown): Mapped | undefined {
  const finish = FINISH[type];
  if (!finish) return undefined;
  try {
    return finish(record as Mapped);
  } catch (err) {
    if (err === SCHEMA) return undefined;
    throw err;
  }
}
