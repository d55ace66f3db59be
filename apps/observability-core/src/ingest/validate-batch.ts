import { PayloadTooLargeError, UserInputError } from '@svc/tool-kit';
import type { z } from 'zod';
import { DEFAULT_RETENTION, type Retention, TTL_COLUMNS } from '../storage/migrations';
import { DAY_MS } from '../storage/time';
import { fastParse } from './fast-records';
import { RECORD_SCHEMAS, RECORD_TYPES, type RecordType, type ValidBatch } from './schemas';
import type { WorkSlices } from './work-slices';

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
/**
 * Records one request may carry, all types together (OTLP: the records it maps to). What a request
 * costs the core grows with its records; beyond this it is 413 and the sender splits it.
 */
export const MAX_RECORDS_PER_REQUEST = 20_000;

export interface TimeBounds {
  now: number;
  retention?: Retention;
}

export interface ValidateOptions {
  /** Pauses between slices of records (work-slices.ts); none: one pass. */
  slices?: WorkSlices;
  /** Where a record came from, for the problems' `path` (OTLP bodies). */
  pathOf?: (type: RecordType, index: number) => string;
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
): string | undefined {
  const retention = bounds.retention ?? DEFAULT_RETENTION;
  if (type === 'spans' && (record.duration_ms as number) > retention.spanDays * DAY_MS)
    return `duration_ms: longer than the ${retention.spanDays}-day span retention (${retention.spanDays * DAY_MS} ms)`;
  const ttl = TTL_COLUMNS[type];
  const value = ttl ? record[ttl.column] : undefined;
  if (!ttl || typeof value !== 'number') return undefined;
  const days = retention[ttl.kind];
  if (value < bounds.now - days * DAY_MS)
    return `${ttl.column}: older than the ${days}-day retention of ${type}`;
  if (value > bounds.now + MAX_FUTURE_MS) return `${ttl.column}: more than a day in the future`;
  return undefined;
}

function reasonOf(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      if (issue.code === 'unrecognized_keys' && issue.keys.includes('project_id')) {
        return "project_id is not allowed: records go to the ingest key's project";
      }
      const path = issue.path.join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

interface Checking {
  problems: RecordProblem[];
  batch: Record<string, unknown[]>;
  bounds: TimeBounds | undefined;
  pathOf: ValidateOptions['pathOf'];
}

/** Checks records [from, to) of one type, adding them to the batch or their problems to the list. */
function checkRecords(type: RecordType, records: unknown[], from: number, to: number, c: Checking): void {
  const schema: z.ZodType = RECORD_SCHEMAS[type];
  for (let index = from; index < to; index++) {
    const record = records[index];
    let data: unknown = fastParse(type, record);
    let reason: string | undefined;
    if (data === undefined) {
      const parsed = schema.safeParse(record);
      if (parsed.success) data = parsed.data;
      else reason = reasonOf(parsed.error.issues);
    }
    if (reason === undefined && c.bounds)
      reason = boundsProblem(type, data as Record<string, unknown>, c.bounds);
    if (reason === undefined) c.batch[type]!.push(data);
    else if (c.pathOf && c.problems.length < MAX_PROBLEMS)
      c.problems.push({ type, index, path: c.pathOf(type, index), reason });
    else c.problems.push({ type, index, reason });
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

/** 413 for a request holding `what` ("20001 records", "more than 20000 spans"). */
export function tooManyRecords(what: string): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `The request holds ${what}; at most ${MAX_RECORDS_PER_REQUEST} are taken per request: send them in smaller requests.`,
    { details: { max_records: MAX_RECORDS_PER_REQUEST } },
  );
}

const notAnArray = (type: RecordType): RecordProblem => ({ type, index: null, reason: 'must be an array' });

function finish(c: Checking): ValidBatch {
  if (c.problems.length > 0) {
    throw new UserInputError(`The batch has ${c.problems.length} invalid record(s); nothing was written.`, {
      details: c.problems.slice(0, MAX_PROBLEMS),
    });
  }
  return c.batch as unknown as ValidBatch;
}

function start(body: unknown, bounds: TimeBounds | undefined, options: ValidateOptions) {
  const c: Checking = { problems: [], batch: {}, bounds, pathOf: options.pathOf };
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
