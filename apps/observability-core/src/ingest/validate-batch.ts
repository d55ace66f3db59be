import { UserInputError } from '@svc/tool-kit';
import type { z } from 'zod';
import { RECORD_SCHEMAS, RECORD_TYPES, type RecordType, type ValidBatch } from './schemas';

export interface RecordProblem {
  type: RecordType | 'batch';
  index: number | null;
  reason: string;
}

const MAX_PROBLEMS = 100;

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
export function validateBatch(body: unknown): ValidBatch {
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
      const parsed = schema.safeParse(record);
      if (parsed.success) batch[type]!.push(parsed.data);
      else problems.push({ type, index, reason: reasonOf(parsed.error.issues) });
    });
  }
  if (problems.length > 0) {
    throw new UserInputError(`The batch has ${problems.length} invalid record(s); nothing was written.`, {
      details: problems.slice(0, MAX_PROBLEMS),
    });
  }
  return batch as unknown as ValidBatch;
}
