import { parseInput, UserInputError } from '@svc/errors';
import { z } from 'zod';
import { days, limit, traceId } from './schemas';

const schema = z.strictObject({
  since: z.union([z.iso.datetime({ offset: true }), z.iso.date()]),
  limit: limit(20),
  days: days(14),
  level: z.enum(['INFO', 'ERROR']).optional(),
  trace_id: traceId.optional(),
  steps: z.array(z.string()).min(2).max(3).optional(),
  note: z.string().min(1).max(5).optional(),
});

function failure(value: unknown): UserInputError {
  try {
    parseInput(schema, value, 'demo.tool');
  } catch (err) {
    if (err instanceof UserInputError) return err;
    throw err;
  }
  throw new Error('expected a failure');
}

const details = (err: UserInputError) => err.details as { path: string; message: string }[];

describe('parseInput', () => {
  it('returns the parsed value with defaults', () => {
    expect(parseInput(schema, { since: '2026-11-20' }, 'demo.tool')).toEqual({
      since: '2026-11-20',
      limit: 20,
      days: 14,
    });
  });

  it('names the field and the accepted forms of a union (never a bare "Invalid input")', () => {
    const err = failure({ since: 'yesterday' });
    expect(err.message).toBe(
      'Invalid input for demo.tool: since must be an ISO 8601 date-time with a time zone, ' +
        'e.g. 2026-11-20T10:00:00Z, or an ISO 8601 date, YYYY-MM-DD.',
    );
    expect(details(err)).toEqual([{ path: 'since', message: expect.stringContaining('YYYY-MM-DD') }]);
  });

  it.each([
    [{ since: '2026-11-20', limit: 0 }, 'limit must be >= 1'],
    [{ since: '2026-11-20', limit: 1001 }, 'limit must be <= 1000'],
    [{ since: '2026-11-20', limit: 2.5 }, 'limit must be an integer, got the number 2.5'],
    [{ since: '2026-11-20', days: '7' }, 'days must be a number, got the string "7"'],
    [{ since: '2026-11-20', level: 'warn' }, 'level must be one of "INFO", "ERROR"'],
    [{ since: '2026-11-20', trace_id: 'abc' }, 'trace_id must be 32 hex characters'],
    [{ since: '2026-11-20', steps: ['a'] }, 'steps must have at least 2 items'],
    [{}, 'since is required: a string'],
    [{ since: '2026-11-20', note: '' }, 'note must not be empty'],
    [{ since: '2026-11-20', note: 'too long' }, 'note must be at most 5 characters long'],
  ])('explains %j as "%s"', (value, expected) => {
    expect(failure(value).message).toContain(expected);
  });

  it('lists each unknown field, and says why project_id is refused', () => {
    const err = failure({ since: '2026-11-20', project_id: 'p', colour: 'red' });
    expect(details(err)).toEqual([
      { path: 'project_id', message: 'is not accepted: the project comes from the token' },
      { path: 'colour', message: 'is not a parameter of this call' },
    ]);
    expect(err.message).toContain('project_id is not accepted');
  });

  it('reports every issue in details and the first five in the message', () => {
    const err = failure({ limit: 0, days: 0, level: 'x', trace_id: 'x', steps: [], a: 1, b: 2 });
    expect(details(err).length).toBe(8);
    expect(err.message).toMatch(/; and 3 more\.$/);
  });
});
