import { parseInput, UserInputError } from '@svc/errors';
import { z } from 'zod';
import { commaList } from './comma-list';

const tags = commaList({ item: 'tag', items: 'tags', max: 3, itemMax: 5, description: 'Up to 3 tags.' });
const schema = z.strictObject({ tags: tags.optional() });

function message(value: unknown): string {
  try {
    parseInput(schema, { tags: value }, 'demo.tool');
  } catch (err) {
    if (err instanceof UserInputError) return err.message.replace('Invalid input for demo.tool: ', '');
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

const read = (value: unknown) => parseInput(schema, { tags: value }, 'demo.tool').tags;

describe('commaList', () => {
  it.each([
    ['a', ['a']],
    ['a,b', ['a', 'b']],
    ['  b , a ', ['b', 'a']],
    ['a,b,a,b,c', ['a', 'b', 'c']],
    ['12345,x', ['12345', 'x']],
  ])('reads %j as %j (trimmed, repeats once where first named)', (text, expected) => {
    expect(read(text)).toEqual(expected);
  });

  it('reads an array of strings as the same list, and its own parsed value again', () => {
    expect(read(['b', ' a', 'b'])).toEqual(['b', 'a']);
    expect(read(read('c, a'))).toEqual(['c', 'a']);
    expect(schema.parse({})).toEqual({});
  });

  it.each([
    ['a,,b', 'tags must not have an empty tag (two commas in a row, or a comma at the start or end).'],
    [',a', 'tags must not have an empty tag (two commas in a row, or a comma at the start or end).'],
    ['a,b,c,d', 'tags must list at most 3 tags (a repeated one counts once), got 4.'],
    ['a,123456', 'tags must list tags of at most 5 characters each, got one of 6.'],
    ['', 'tags must not be empty.'],
    ['   ', 'tags must not be empty.'],
    [[], 'tags must not be empty.'],
    ['x'.repeat(22), 'tags must be at most 21 characters long.'],
    [7, 'tags must be a string, got number 7.'],
    [[1, 2], 'tags must be a string, got an array.'],
  ])('refuses %j: "%s"', (value, expected) => {
    expect(message(value)).toBe(expected);
  });

  it('is a plain string in JSON Schema, bounded by the longest list that can pass', () => {
    expect(z.toJSONSchema(tags, { io: 'input', unrepresentable: 'any' })).toEqual({
      $schema: expect.any(String),
      type: 'string',
      minLength: 1,
      maxLength: 3 * (5 + 2),
      description: 'Up to 3 tags.',
    });
  });
});
