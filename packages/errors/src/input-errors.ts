import type { z } from 'zod';
import { UserInputError } from './errors';

// The one mapping from zod's issues to what a caller reads in a 400: every issue names its field
// and says what was expected, in words a person (or a model) can act on. A message written on the
// schema itself (e.g. 'must be 16 hex characters') wins over these defaults.

export interface InputIssue {
  /** Dotted path of the field ('' for the whole object). */
  path: string;
  message: string;
}

type RawIssue = z.core.$ZodRawIssue;

const FORMATS: Record<string, string> = {
  datetime: 'an ISO 8601 date-time with a time zone, e.g. 2026-11-20T10:00:00Z',
  date: 'an ISO 8601 date, YYYY-MM-DD',
  time: 'an ISO 8601 time, HH:MM[:SS]',
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
};

const KINDS: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
};

function received(input: unknown): string {
  if (input === undefined) return 'nothing';
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'number' && !Number.isInteger(input)) return `the number ${input}`;
  if (typeof input === 'string') return `the string ${JSON.stringify(input.slice(0, 40))}`;
  return typeof input === 'object' ? 'an object' : `${typeof input} ${String(input)}`;
}

function bound(issue: RawIssue & { code: 'too_small' | 'too_big' }): string {
  const limit = String(issue.code === 'too_small' ? issue.minimum : issue.maximum);
  const atLeast = issue.code === 'too_small';
  switch (issue.origin) {
    case 'string':
      if (atLeast && limit === '1') return 'must not be empty';
      return `must be ${atLeast ? 'at least' : 'at most'} ${limit} characters long`;
    case 'array':
    case 'set':
      return `must have ${atLeast ? 'at least' : 'at most'} ${limit} items`;
    default: {
      const op = atLeast ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
      return `must be ${op} ${limit}`;
    }
  }
}

/** The expectation an issue states, as a phrase ("must be ..."). */
function phrase(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const kind = KINDS[issue.expected] ?? issue.expected;
      if (issue.input === undefined) return `is required (${kind})`;
      return `must be ${kind}, got ${received(issue.input)}`;
    }
    case 'too_small':
    case 'too_big':
      return bound(issue);
    case 'invalid_format': {
      const known = FORMATS[issue.format];
      if (known) return `must be ${known}`;
      if (issue.format === 'regex' && issue.pattern) return `must match ${String(issue.pattern)}`;
      return `must be a valid ${issue.format}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return issue.keys.includes('project_id')
        ? 'project_id is not accepted: the project comes from the token'
        : `unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_union': {
      const forms = issue.errors.map((issues) => issues.map((i) => form(i as RawIssue)).join(', '));
      const alternatives = [...new Set(forms)].join(', or ');
      return issue.input === undefined ? `is required: ${alternatives}` : `must be ${alternatives}`;
    }
    default:
      return 'is not valid here';
  }
}

/** What one alternative of a union accepts, as a noun phrase ("an ISO 8601 date, YYYY-MM-DD"). */
function form(issue: RawIssue): string {
  if (issue.code === 'invalid_type') return KINDS[issue.expected] ?? issue.expected;
  return phrase(issue).replace(/^must (be|match) /, (_m, verb: string) =>
    verb === 'match' ? 'matching ' : '',
  );
}

/** Per-parse error map: used for every issue whose schema did not state its own message. */
const errorMap = (issue: RawIssue) => phrase(issue);

function toInputIssues(error: z.ZodError): InputIssue[] {
  return error.issues.flatMap((issue): InputIssue[] => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: path ? `${path}.${key}` : key,
        message:
          key === 'project_id'
            ? 'is not accepted: the project comes from the token'
            : 'is not a parameter of this call',
      }));
    }
    return [{ path, message: issue.message }];
  });
}

/** A 400 whose message names every bad field and what it expects; the issues also in `details`. */
export function invalidInputError(subject: string, issues: readonly InputIssue[]): UserInputError {
  const listed = issues
    .slice(0, 5)
    .map((i) => (i.path ? `${i.path} ${i.message}` : i.message))
    .join('; ');
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : '';
  return new UserInputError(`Invalid input for ${subject}: ${listed}${more}.`, { details: issues });
}

/**
 * Strict validation at a boundary: the parsed value, or a UserInputError built from the issues.
 * `subject` names what was validated (a tool name, "request").
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, subject: string): z.output<S> {
  const result = schema.safeParse(value, { error: errorMap });
  if (result.success) return result.data;
  throw invalidInputError(subject, toInputIssues(result.error));
}
