import { UserInputError } from '@svc/errors';
import type { BodyPath, PathSegment } from '../json/json-path';
import { MAX_RECORDS_PER_REQUEST, tooManyRecords } from '../request-limits';

// Reading an OTLP request (JSON as sent, or protobuf decoded to the same shape) without trusting
// its shape: every field is read with the type OTLP gives it, and a field of another type (a
// `traceId` sent as a number, `resourceSpans` as an object) is a problem named by its JSON path,
// never an exception. The mappings (otlp-traces.ts, otlp-logs.ts, otlp-metrics.ts) read through
// these and put what they make into an OtlpOutput: records with the path they came from, or the
// problems that refuse the request (400, every problem listed, nothing written).

export type OtlpObject = Record<string, unknown>;

export interface OtlpProblem {
  path: string;
  reason: string;
}

/**
 * Where each field of a mapped record came from, relative to the record's OTLP object
 * (`start_time: ['startTimeUnixNano']`), so that a problem the batch validation finds later (a
 * time outside the retention) names the OTLP field. One shared object per shape of record.
 */
export type FieldSources = Readonly<Record<string, readonly PathSegment[]>>;

const MAX_PROBLEMS = 100;

export class OtlpOutput {
  readonly records: unknown[] = [];
  private readonly sources: BodyPath[] = [];
  private readonly fieldSources: FieldSources[] = [];
  readonly problems: OtlpProblem[] = [];
  problemCount = 0;

  /** A mapped record, where it came from and its fields; 413 once a request maps to too many. */
  add(record: unknown, source: BodyPath, fields: FieldSources): void {
    if (this.records.length >= MAX_RECORDS_PER_REQUEST)
      throw tooManyRecords(`more than ${MAX_RECORDS_PER_REQUEST} records`);
    this.records.push(record);
    this.sources.push(source);
    this.fieldSources.push(fields);
  }

  problem(path: BodyPath, reason: string): void {
    this.problemCount++;
    if (this.problems.length < MAX_PROBLEMS) this.problems.push({ path: path.toString(), reason });
  }

  /** Where record `index` came from (`resourceSpans[0].scopeSpans[0].spans[3]`). */
  pathOf = (_type: string, index: number): string => this.sources[index]?.toString() ?? '';

  /** Where field `field` of record `index` came from (`...spans[3].startTimeUnixNano`), when known. */
  fieldPathOf = (_type: string, index: number, field: string): string | undefined => {
    const source = this.sources[index];
    const fields = this.fieldSources[index];
    if (!source || !fields || !Object.hasOwn(fields, field)) return undefined;
    const relative = fields[field]!;
    let path = source;
    for (const segment of relative) path = path.child(segment);
    return path.toString();
  };

  /** Throws the problems found, if any. */
  check(): void {
    if (this.problemCount === 0) return;
    throw new UserInputError(`The request has ${this.problemCount} invalid field(s); nothing was written.`, {
      details: this.problems,
    });
  }
}

export const isObject = (value: unknown): value is OtlpObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The request itself: an object, or a 400 (a JSON array, a number, `null`). */
export function requestObject(body: unknown, message: string): OtlpObject {
  if (!isObject(body)) throw new UserInputError(`The request body is not ${message} (a JSON object).`);
  return body;
}

/** A repeated field: absent or null is empty; not an array is a problem (and empty). */
export function listAt(parent: OtlpObject, key: string, path: BodyPath, out: OtlpOutput): unknown[] {
  const value = parent[key];
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  out.problem(path.child(key), 'expected an array');
  return [];
}

/** A message field: absent or null is undefined; not an object is a problem (and undefined). */
export function objectAt(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
): OtlpObject | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (isObject(value)) return value;
  out.problem(path.child(key), 'expected an object');
  return undefined;
}

/** Each element of a repeated message field that is an object, with its path; others are problems. */
export function* objectsOf(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
): Generator<[OtlpObject, BodyPath]> {
  const list = listAt(parent, key, path, out);
  if (list.length === 0) return;
  const listPath = path.child(key);
  for (let i = 0; i < list.length; i++) {
    const element = list[i];
    if (isObject(element)) yield [element, listPath.child(i)];
    else out.problem(listPath.child(i), 'expected an object');
  }
}

export function stringAt(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
): string | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  out.problem(path.child(key), 'expected a string');
  return undefined;
}

const INTEGER_TEXT = /^-?\d{1,20}$/;

/** A 64-bit integer, as OTLP JSON writes it (a decimal string, or a number) and the decoder hands it on. */
export function int64At(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
): bigint | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) {
    const n = BigInt(value);
    if (n >= -(2n ** 63n) && n < 2n ** 64n) return n;
  }
  out.problem(path.child(key), 'expected a 64-bit integer (a decimal string or a number)');
  return undefined;
}

/** Non-finite doubles as proto3 JSON writes them. */
const SPECIAL_DOUBLES: Record<string, number> = {
  NaN: Number.NaN,
  Infinity: Number.POSITIVE_INFINITY,
  '-Infinity': Number.NEGATIVE_INFINITY,
};

/** A double: a number, or "NaN" / "Infinity" / "-Infinity" as proto3 JSON allows. */
export function doubleAt(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
): number | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value in SPECIAL_DOUBLES) return SPECIAL_DOUBLES[value];
  out.problem(path.child(key), 'expected a number');
  return undefined;
}

/**
 * An enum: its number (0 .. names.length - 1) or its name; anything else is a problem that says
 * what is expected. Absent: 0, as protobuf reads a missing enum.
 */
export function enumAt(
  parent: OtlpObject,
  key: string,
  names: readonly string[],
  path: BodyPath,
  out: OtlpOutput,
): number | undefined {
  const value = parent[key];
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < names.length)
    return value;
  if (typeof value === 'string') {
    const index = names.indexOf(value);
    if (index >= 0) return index;
  }
  out.problem(path.child(key), `expected 0-${names.length - 1} or one of ${names.join(', ')}`);
  return undefined;
}

/**
 * An optional id (hex in OTLP JSON, the decoder writes bytes as hex): lowercased; empty or all
 * zeros (W3C's invalid id, which some SDKs send for "none") is absent.
 */
export function optionalIdAt(
  parent: OtlpObject,
  key: string,
  path: BodyPath,
  out: OtlpOutput,
): string | undefined {
  const id = stringAt(parent, key, path, out);
  if (!id || /^0+$/.test(id)) return undefined;
  return id.toLowerCase();
}
