import { parseInput, UserInputError } from '@svc/errors';
import { z } from 'zod';
import { releaseHealth } from './release-health';

const tenDistinct = Array.from({ length: 10 }, (_, i) => `${i}.0.0`);

function refusal(input: Record<string, unknown>): string {
  try {
    parseInput(releaseHealth.input, input, 'release.health');
  } catch (err) {
    if (err instanceof UserInputError) return err.message;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

// The input contract of the performance tools (the documented defaults, docs/semantics.md ranges).
describe('apm tool inputs', () => {
  it('release.health: exactly one of version or versions, days 14 by default', () => {
    expect(releaseHealth.input.parse({ version: ' 2.0 ' })).toEqual({ version: '2.0', days: 14 });
    expect(releaseHealth.input.parse({ versions: '1,2', days: 3 })).toEqual({
      versions: ['1', '2'],
      days: 3,
    });
    for (const bad of [{}, { version: '1', versions: '2' }, { version: '' }]) {
      expect(releaseHealth.input.safeParse(bad).success).toBe(false);
    }
  });

  // versions is one comma-separated string: items trimmed, empty ones refused, a repeated one kept
  // once where first named, at most 10 distinct versions of at most 100 characters each.

  it.each([
    ['5.0.0,5.1.0', ['5.0.0', '5.1.0']],
    [' 5.1.0 ,  5.0.0 ', ['5.1.0', '5.0.0']],
    ['2.0,1.0,2.0, 1.0,3.0', ['2.0', '1.0', '3.0']],
    ['2.4.0', ['2.4.0']],
    [tenDistinct.join(','), tenDistinct],
    [[...tenDistinct, tenDistinct[0]!].join(','), tenDistinct],
    [`${'x'.repeat(100)},y`, ['x'.repeat(100), 'y']],
  ])('release.health reads versions %j as %j', (versions, expected) => {
    expect(parseInput(releaseHealth.input, { versions }, 'release.health').versions).toEqual(expected);
  });

  // Callers that send a list keep working: an array of strings is read as the same list (and it is
  // what a gateway forwards to the core once the string is parsed).

  it('release.health reads an array of versions as the same list, and its own parsed value again', () => {
    const parsed = releaseHealth.input.parse({ versions: ['2.0', ' 1.0', '2.0'] });
    expect(parsed).toEqual({ versions: ['2.0', '1.0'], days: 14 });
    expect(releaseHealth.input.parse(parsed)).toEqual(parsed);
    expect(releaseHealth.input.parse(releaseHealth.input.parse({ versions: '3.0, 4.0' }))).toEqual({
      versions: ['3.0', '4.0'],
      days: 14,
    });
  });

  it.each([
    [
      '5.0.0,,5.1.0',
      'versions must not have an empty version (two commas in a row, or a comma at the start or end)',
    ],
    [
      '5.0.0,',
      'versions must not have an empty version (two commas in a row, or a comma at the start or end)',
    ],
    [' , ', 'versions must not have an empty version (two commas in a row, or a comma at the start or end)'],
    ['', 'versions must not be empty'],
    [[], 'versions must not be empty'],
    [
      [...tenDistinct, 'v10'].join(','),
      'versions must list at most 10 versions (a repeated one counts once), got 11',
    ],
    [`1.0,${'x'.repeat(101)}`, 'versions must list versions of at most 100 characters each, got one of 101'],
    [42, 'versions must be a string, got number 42'],
  ])('release.health refuses versions %j: "%s"', (versions, expected) => {
    expect(refusal({ versions })).toBe(`Invalid input for release.health: ${expected}.`);
  });

  it('release.health says which of version and versions to give, in sentences', () => {
    expect(refusal({})).toBe(
      'Invalid input for release.health: version is required when versions is not given.',
    );
    expect(refusal({ version: '1.0', versions: '2.0' })).toBe(
      'Invalid input for release.health: versions must not be given together with version.',
    );
  });

  it('release.health publishes versions as one plain string', () => {
    const schema = z.toJSONSchema(releaseHealth.input, { io: 'input', unrepresentable: 'any' });
    const { properties } = schema as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(properties.versions).toEqual({
      type: 'string',
      minLength: 1,
      maxLength: expect.any(Number),
      description: expect.stringContaining('comma-separated'),
    });
    expect(properties.version).toMatchObject({ type: 'string' });
  });
});
