import { parseInput, UserInputError } from '@svc/errors';
import { z } from 'zod';
import { exactlyOneOf } from './exactly-one-of';

const schema = z
  .strictObject({ one: z.string().optional(), many: z.array(z.string()).optional() })
  .superRefine(exactlyOneOf('one', 'many'));

function failure(value: unknown): UserInputError {
  try {
    parseInput(schema, value, 'demo.tool');
  } catch (err) {
    if (err instanceof UserInputError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe('exactlyOneOf', () => {
  it('takes either field alone', () => {
    expect(parseInput(schema, { one: 'a' }, 'demo.tool')).toEqual({ one: 'a' });
    expect(parseInput(schema, { many: ['a'] }, 'demo.tool')).toEqual({ many: ['a'] });
  });

  it('names the first field when neither is given, in a sentence', () => {
    const err = failure({});
    expect(err.message).toBe('Invalid input for demo.tool: one is required when many is not given.');
    expect(err.details).toEqual([{ path: 'one', message: 'is required when many is not given' }]);
  });

  it('names the second field when both are given, in a sentence', () => {
    const err = failure({ one: 'a', many: ['b'] });
    expect(err.message).toBe('Invalid input for demo.tool: many must not be given together with one.');
    expect(err.details).toEqual([{ path: 'many', message: 'must not be given together with one' }]);
  });
});
