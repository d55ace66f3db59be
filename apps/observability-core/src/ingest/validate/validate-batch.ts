import { UserInputError } from '@svc/errors';
import type { z } from 'zod';
import { DEFAULT_RETENTION, type Retention, TTL_COLUMNS } from '../../storage/migrations';
import { DAY_MS } from '../../storage/time';
import { MAX_RECORDS_PER_REQUEST, tooManyRecords } from '../request-limits';
import { RECORD_SCHEMAS, RECORD_TYPES, type RecordType, type ValidBatch } from '../schemas';
import type { WorkSlices } from '../work-slices';
import { fastParse } from './fast-records';
import { finishMapped } from './mapped-records';

export interface RecordProblem {
  type: RecordType | 'batch';
  index: number | null;
  /** Where the record came from in an OTLP body (`resourceSpans[0].scopeSpans[1].spans[4]`). */
  path?: string;
  reason: string;
}

const MAX_PROBLEMS = 100;
/** Device clocks drift: up to a day ahead is accepted, later is a bad clock or a bad record. */
const MAX_FUTURE_MS = DAY_MS;

export interface TimeBounds {
  now: number;
  retention?: Retention;
}

export interface ValidateOptions {
  /** Pauses between slices of records (work-slices.ts); none: one pass. */
  slices?: WorkSlices;
  /** Where a record came from, for the problems' `path` (OTLP bodies). */
  pathOf?: (type: RecordType, index: number) => string;
  /**
   * Where a field of a record came from (OTLP: `...spans[0].startTimeUnixNano` for `start_time`):
   * each problem of such a field is then listed on its own at that path, as a client can find it
   * in what it sent, with the message alone as its reason.
   */
  fieldPathOf?: (type: RecordType, index: number, field: string) => string | undefined;
  /**
   * The records come from an OTLP mapping, which checked every field it filled as it read them:
   * they are finished (mapped-records.ts), not checked again; the schema decides only what the
   * finisher cannot.
   */
  mapped?: boolean;
}

/** One thing wrong with a record: the field it is about, the rest of its path, what is wrong. */
interface FieldProblem {
  field: string | undefined;
  /** The path below the field (`attributes.k`: `k`), '' for none. */
  rest: string;
  message: string;
}

/**
 * A record older than its table's retention would be accepted by the insert and then dropped by
 * the TTL, silently. Refusing it with a reason keeps the promise that bad input loses nothing
 * without the sender being told. A span may not last longer than spans are kept.
 */
function boundsProblem(
  type: RecordType,
  record: Record<string, unknown>,
  bounds: TimeBounds,
): FieldProblem | undefined {
  const retention = bounds.retention ?? DEFAULT_RETENTION;
  if (type === 'spans' && (record.duration_ms as number) > retention.spanDays * DAY_MS)
    return {
      field: 'duration_ms',
      rest: '',
      message: `longer than the ${retention.spanDays}-day span retention (${retention.spanDays * DAY_MS} ms)`,
    };
  const ttl = TTL_COLUMNS[type];
  const value = ttl ? record[ttl.column] : undefined;
  if (!ttl || typeof value !== 'number') return undefined;
  const days = retention[ttl.kind];
  if (value < bounds.now - days * DAY_MS)
    return { field: ttl.column, rest: '', message: `older than the ${days}-day retention of ${type}` };
  if (value > bounds.now + MAX_FUTURE_MS)
    return { field: ttl.column, rest: '', message: 'more than a day in the future' };
  return undefined;
}

function problemsOf(issues: readonly z.core.$ZodIssue[]): FieldProblem[] {
  return issues.slice(0, 5).map((issue) => {
    if (issue.code === 'unrecognized_keys' && issue.keys.includes('project_id'))
      return {
        field: undefined,
        rest: '',
        message: "project_id is not allowed: records go to the ingest key's project",
      };
    const [field, ...rest] = issue.path;
    return {
      field: field === undefined ? undefined : String(field),
      rest: rest.join('.'),
      message: issue.message,
    };
  });
}

/** A problem as the batch route words it: `field.rest: message`. */
function wordingOf(p: FieldProblem): string {
  const path = p.field === undefined ? '' : p.rest ? `${p.field}.${p.rest}` : p.field;
  return path ? `${path}: ${p.message}` : p.message;
}

interface Checking {
  problems: RecordProblem[];
  batch: Record<string, unknown[]>;
  bounds: TimeBounds | undefined;
  pathOf: ValidateOptions['pathOf'];
  fieldPathOf: ValidateOptions['fieldPathOf'];
  mapped: boolean;
  /** Records refused (a record may have several problems listed). */
  invalid: number;
}

/**
 * The problems of record `index`: one per record (its problems joined by `; `), or for a record
 * whose fields' sources are known (OTLP), one per problem at the path of the field it is about.
 */
function report(c: Checking, type: RecordType, index: number, found: FieldProblem[]): void {
  c.invalid++;
  if (!c.pathOf) {
    c.problems.push({ type, index, reason: found.map(wordingOf).join('; ') });
    return;
  }
  const recordPath = c.pathOf(type, index);
  for (const p of found) {
    const fieldPath = p.field === undefined ? undefined : c.fieldPathOf?.(type, index, p.field);
    if (c.problems.length >= MAX_PROBLEMS) c.problems.push({ type, index, reason: wordingOf(p) });
    else if (fieldPath)
      c.problems.push({
        type,
        index,
        path: fieldPath,
        reason: p.rest ? `${p.rest}: ${p.message}` : p.message,
      });
    else c.problems.push({ type, index, path: recordPath, reason: wordingOf(p) });
  }
}

/** Checks records [from, to) of one type, adding them to the batch or their problems to the list. */
function checkRecords(type: RecordType, records: unknown[], from: number, to: number, c: Checking): void {
  const schema: z.ZodType = RECORD_SCHEMAS[type];
  for (let index = from; index < to; index++) {
    const record = records[index];
    let data: unknown = c.mapped ? finishMapped(type, record) : fastParse(type, record);
    let found: FieldProblem[] | undefined;
    if (data === undefined) {
      const parsed = schema.safeParse(record);
      if (parsed.success) data = parsed.data;
      else found = problemsOf(parsed.error.issues);
    }
    if (found === undefined && c.bounds) {
      const problem = boundsProblem(type, data as Record<string, unknown>, c.bounds);
      if (problem) found = [problem];
    }
    if (found === undefined) c.batch[type]!.push(data);
    else report(c, type, index, found);
  }
}

/**
 * The record arrays of a body in type order (null: not an array, a problem when its turn comes);
 * 413 past MAX_RECORDS_PER_REQUEST.
 */
function recordArrays(body: unknown, problems: RecordProblem[]): [RecordType, unknown[] | null][] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new UserInputError('The batch must be a JSON object of record arrays.');
  }
  const unknown = Object.keys(body).filter((key) => !(RECORD_TYPES as string[]).includes(key));
  for (const key of unknown.slice(0, 10)) {
    problems.push({ type: 'batch', index: null, reason: `unknown key ${JSON.stringify(key.slice(0, 50))}` });
  }
  const arrays: [RecordType, unknown[] | null][] = [];
  let total = 0;
  const input = body as Record<string, unknown>;
  for (const type of RECORD_TYPES) {
    const records = input[type];
    if (records === undefined) continue;
    if (!Array.isArray(records)) {
      arrays.push([type, null]);
      continue;
    }
    arrays.push([type, records]);
    total += records.length;
  }
  if (total > MAX_RECORDS_PER_REQUEST) throw tooManyRecords(`${total} records`);
  return arrays;
}

const notAnArray = (type: RecordType): RecordProblem => ({ type, index: null, reason: 'must be an array' });

function finish(c: Checking): ValidBatch {
  if (c.problems.length > 0) {
    // Records refused, and the body's own problems (an unknown key, an array that is not one).
    const count = c.invalid + c.problems.filter((p) => p.index === null).length;
    throw new UserInputError(`The batch has ${count} invalid record(s); nothing was written.`, {
      details: c.problems.slice(0, MAX_PROBLEMS),
    });
  }
  return c.batch as unknown as ValidBatch;
}

function start(body: unknown, bounds: TimeBounds | undefined, options: ValidateOptions) {
  const c: Checking = {
    problems: [],
    batch: {},
    bounds,
    pathOf: options.pathOf,
    fieldPathOf: options.fieldPathOf,
    mapped: options.mapped === true,
    invalid: 0,
  };
  for (const type of RECORD_TYPES) c.batch[type] = [];
  return { c, arrays: recordArrays(body, c.problems) };
}

/**
 * Validates a whole batch: either every record is valid and the parsed batch is returned, or a
 * UserInputError lists every bad record (type, index, reason) and nothing may be written.
 */
export function validateBatch(body: unknown, bounds?: TimeBounds, options: ValidateOptions = {}): ValidBatch {
  const { c, arrays } = start(body, bounds, options);
  for (const [type, records] of arrays) {
    if (records === null) c.problems.push(notAnArray(type));
    else checkRecords(type, records, 0, records.length, c);
  }
  return finish(c);
}

/** validateBatch, pausing after every `options.slices.every` records. */
export async function validateBatchInSlices(
  body: unknown,
  bounds: TimeBounds,
  options: ValidateOptions & { slices: WorkSlices },
): Promise<ValidBatch> {
  const { c, arrays } = start(body, bounds, options);
  const { slices } = options;
  for (const [type, records] of arrays) {
    if (records === null) {
      c.problems.push(notAnArray(type));
      continue;
    }
    for (let from = 0; from < records.length; from += slices.every) {
      const to = Math.min(records.length, from + slices.every);
      checkRecords(type, records, from, to, c);
      if (slices.add(to - from)) await slices.pause();
    }
  }
  return finish(c);
}
