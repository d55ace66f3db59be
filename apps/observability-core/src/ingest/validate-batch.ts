import { UserInputError } from '@svc/tool-kit';
import type { z } from 'zod';
import { DEFAULT_RETENTION, type Retention, TTL_COLUMNS } from '../storage/migrations';
import { DAY_MS } from '../storage/time';
import { fastParse } from './fast-records';
import { RECORD_SCHEMAS, RECORD_TYPES, type RecordType, type ValidBatch } from './schemas';

export interface RecordProblem {
  type: RecordType | 'batch';
  index: number | null;
  reason: string;
}

const MAX_PROBLEMS = 100;
/** Device clocks drift: up to a day ahead is accepted, later is a bad clock or a bad record. */
const MAX_FUTURE_MS = DAY_MS;

export interface TimeBounds {
  now: number;
  retention?: Retention;
}

/**
 * A record older than its table's retention would be accepted by the insert and then dropped by
 * the TTL, silently. Refusing it with a reason keeps the promise that bad input loses nothing
 * without the sender being told.
 */
function timeProblem(
  type: RecordType,
  record: Record<string, unknown>,
  bounds: TimeBounds,
): string | undefined {
  const ttl = TTL_COLUMNS[type];
  const value = ttl ? record[ttl.column] : undefined;
  if (!ttl || typeof value !== 'number') return undefined;
  const days = (bounds.retention ?? DEFAULT_RETENTION)[ttl.kind];
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

/**
 * Validates a whole batch: either every record is valid and the parsed batch is returned, or a
 * UserInputError lists every bad record (type, index, reason) and nothing may be written.
 */
export function validateBatch(body: unknown, bounds?: TimeBounds): ValidBatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new UserInputError('The batch must be a JSON object of record arrays.');
  }
  const problems: RecordProblem[] = [];
  const unknown = Object.keys(body).filter((key) => !(RECORD_TYPES as string[]).includes(key));
  for (const key of unknown.slice(0, 10)) {
    problems.push({ type: 'batch', index: null, reason: `unknown key ${JSON.stringify(key.slice(0, 50))}` });
  }
  const batch: Record<string, unknown[]> = {};
  const input = body as Record<string, unknown>;
  for (const type of RECORD_TYPES) {
    const records = input[type];
    batch[type] = [];
    if (records === undefined) continue;
    if (!Array.isArray(records)) {
      problems.push({ type, index: null, reason: 'must be an array' });
      continue;
    }
    const schema: z.ZodType = RECORD_SCHEMAS[type];
    records.forEach((record, index) => {
      let data: unknown = fastParse(type, record);
      if (data === undefined) {
        const parsed = schema.safeParse(record);
        if (!parsed.success) {
          problems.push({ type, index, reason: reasonOf(parsed.error.issues) });
          return;
        }
        data = parsed.data;
      }
      const late = bounds ? timeProblem(type, data as Record<string, unknown>, bounds) : undefined;
      if (late) problems.push({ type, index, reason: late });
      else batch[type]!.push(data);
    });
  }
  if (problems.length > 0) {
    throw new UserInputError(`The batch has ${problems.length} invalid record(s); nothing was written.`, {
      details: problems.slice(0, MAX_PROBLEMS),
    });
  }
  return batch as unknown as ValidBatch;
}

/** A request body's JSON, or a UserInputError saying it is not JSON (the parser's text is not echoed). */
export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new UserInputError('The request body is not valid JSON.');
  }
}
