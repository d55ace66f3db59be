import { ALL_ZEROS, HEX_ID, MAX_TIME, MIN_TIME } from '../field-rules';
import type { BodyPath } from '../json/json-path';
import { MAX_METRIC_MAGNITUDE } from '../value-bounds';
import { doubleAt, int64At, type OtlpObject, type OtlpOutput, stringAt } from './otlp-shape';

// The OTLP fields that become checked record fields (times, ids, names, metric values), read with
// the bounds of the record field they fill (docs/ingest.md, "Value bounds"). A value the record
// would refuse is refused here, naming the OTLP field by its path in the request
// (`...logRecords[0].timeUnixNano`), which a client can find in what it sent, rather than the
// record field it maps to (`timestamp`), which the client never wrote. The rules are
// field-rules.ts's; these checks are the only ones an OTLP record's fields go through
// (mapped-records.ts).

const NANOS_PER_MS = 1_000_000n;
const MIN_NANOS = BigInt(MIN_TIME) * NANOS_PER_MS;
const MAX_NANOS = BigInt(MAX_TIME) * NANOS_PER_MS;

/** Nanoseconds since the epoch as epoch milliseconds (what the ingest format takes). */
export const msOf = (nanos: bigint) => Number(nanos / NANOS_PER_MS);

/**
 * A time (nanoseconds since 1970, a 64-bit integer) between 2000 and 2100. Absent: a problem when
 * `required`, else undefined; `zeroIsAbsent`: 0 is OTLP's "unknown" (a log record's time);
 * `relative`: only compared with another time (a span's end, to its start), not range-checked.
 */
export function timeAt(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
  options: { required: boolean; zeroIsAbsent?: boolean; relative?: boolean },
): bigint | undefined {
  const before = out.problemCount;
  const nanos = int64At(parent, key, path, out);
  if (nanos === undefined || (options.zeroIsAbsent && nanos === 0n)) {
    if (options.required && out.problemCount === before)
      out.problem(path.child(key), 'required: a time in nanoseconds since 1970, between 2000 and 2100');
    return undefined;
  }
  if (!options.relative && (nanos < MIN_NANOS || nanos >= MAX_NANOS)) {
    out.problem(path.child(key), 'must be a time between 2000 and 2100 (nanoseconds since 1970)');
    return undefined;
  }
  return nanos;
}

/**
 * An id of `length` hex characters (JSON: hex text; protobuf: bytes, decoded to hex), lowercased.
 * Required: absent is a problem and all zeros (W3C's invalid id) too. Optional: absent, empty or
 * all zeros (what some SDKs send for "none") is undefined.
 */
export function idAt(
  parent: OtlpObject,
  key: string,
  length: 16 | 32,
  path: BodyPath,
  out: OtlpOutput,
  required: boolean,
): string | undefined {
  const before = out.problemCount;
  const id = stringAt(parent, key, path, out);
  if (out.problemCount > before) return undefined;
  const shape = `${length} hex characters (${length / 2} bytes)`;
  if (!required && (!id || ALL_ZEROS.test(id))) return undefined;
  if (id === undefined || id === '') out.problem(path.child(key), `required: ${shape}`);
  else if (!HEX_ID[length].test(id)) out.problem(path.child(key), `must be ${shape}`);
  else if (ALL_ZEROS.test(id)) out.problem(path.child(key), 'must not be all zeros (an invalid id)');
  else return id.toLowerCase();
  return undefined;
}

/** `text` at `where` within 1..max characters (a problem names `where` and says why). */
export function checkLength(text: string, max: number, where: BodyPath, out: OtlpOutput, note = ''): boolean {
  if (text.length <= max) return true;
  out.problem(where, `longer than ${max} characters${note}`);
  return false;
}

/** A name the record requires: 1..max characters; absent or empty is a problem too. */
export function nameAt(
  parent: OtlpObject,
  key: string,
  max: number,
  path: BodyPath,
  out: OtlpOutput,
): string | undefined {
  const before = out.problemCount;
  const name = stringAt(parent, key, path, out);
  if (out.problemCount > before) return undefined;
  if (name === undefined) out.problem(path.child(key), `required: 1-${max} characters`);
  else if (name === '' || name.length > max)
    out.problem(path.child(key), `must be 1-${max} characters (${name.length} sent)`);
  else return name;
  return undefined;
}

/** An optional text of at most `max` characters; empty is absent. */
export function optionalTextAt(
  parent: OtlpObject,
  key: string,
  max: number,
  path: BodyPath,
  out: OtlpOutput,
): string | undefined {
  const text = stringAt(parent, key, path, out);
  if (!text) return undefined;
  return checkLength(text, max, path.child(key), out) ? text : undefined;
}

const MAGNITUDE = `${MAX_METRIC_MAGNITUDE.toExponential()}`.replace('+', '');

/** A metric value: finite, within ±1e15 (a double, or an int64 `asInt`); undefined when absent. */
export function metricValueAt(
  parent: OtlpObject,
  key: string,
  type: 'double' | 'int64',
  path: BodyPath,
  out: OtlpOutput,
): number | undefined {
  const before = out.problemCount;
  const raw = type === 'double' ? doubleAt(parent, key, path, out) : int64At(parent, key, path, out);
  if (raw === undefined || out.problemCount > before) return undefined;
  const value = Number(raw);
  if (Number.isFinite(value) && Math.abs(value) <= MAX_METRIC_MAGNITUDE) return value;
  out.problem(path.child(key), `must be a finite number, -${MAGNITUDE} .. ${MAGNITUDE}`);
  return undefined;
}

/** A count (a histogram's or summary's): an integer, 0 .. 1e15; absent is 0. */
export function countAt(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
): number | undefined {
  const before = out.problemCount;
  const count = int64At(parent, key, path, out);
  if (out.problemCount > before) return undefined;
  if (count === undefined) return 0;
  if (count >= 0n && count <= BigInt(MAX_METRIC_MAGNITUDE)) return Number(count);
  out.problem(path.child(key), `must be an integer, 0 .. ${MAGNITUDE}`);
  return undefined;
}
