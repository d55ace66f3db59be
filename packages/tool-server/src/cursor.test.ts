import { UserInputError } from '@svc/errors';
import { CURSOR_MAX_OFFSET, CURSOR_TTL_MS, type CursorBinding, CursorSeal, withNextCursor } from './cursor';

const binding: CursorBinding = {
  tool: 'log.search',
  projectId: 'proj_a',
  tokenId: 'tok_1',
  input: { search: 'timeout', limit: 20, source: 'backend' },
};

function refusal(run: () => unknown): { message: string; details: unknown } {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(UserInputError);
    return err as UserInputError & { details: unknown };
  }
  throw new Error('expected a refusal');
}

describe('CursorSeal', () => {
  let clock = 1_000_000;
  const seal = new CursorSeal('a-deployment-secret-of-enough-length', () => clock);

  it('opens what it sealed, for the same call whatever the order of its arguments or its limit', () => {
    const cursor = seal.seal(binding, 40);
    const reordered = { ...binding, input: { limit: 50, source: 'backend', search: 'timeout', cursor } };
    expect(seal.open(cursor, reordered)).toBe(40);
  });

  it.each([
    ['another tool', { ...binding, tool: 'log.recent' }],
    ['another project', { ...binding, projectId: 'proj_b' }],
    ['another token', { ...binding, tokenId: 'tok_2' }],
    ['other arguments', { ...binding, input: { ...binding.input, search: 'refused' } }],
  ])('refuses a cursor used with %s, naming cursor', (_what, other) => {
    const cursor = seal.seal(binding, 20);
    const err = refusal(() => seal.open(cursor, other));
    expect(err.message).toMatch(/cursor belongs to another call/);
    expect(err.details).toEqual([expect.objectContaining({ path: 'cursor' })]);
  });

  it('refuses a tampered cursor and one sealed with another secret', () => {
    const cursor = seal.seal(binding, 20);
    const [body, mac] = cursor.split('.') as [string, string];
    const forged = Buffer.from(
      Buffer.from(body, 'base64url').toString('utf8').replace('"o":20', '"o":2000'),
    ).toString('base64url');
    expect(refusal(() => seal.open(`${forged}.${mac}`, binding)).message).toMatch(/cursor is not a cursor/);
    const other = new CursorSeal('another-deployment-secret-entirely', () => clock);
    expect(refusal(() => seal.open(other.seal(binding, 20), binding)).message).toMatch(/cursor is not/);
    expect(refusal(() => seal.open('garbage', binding)).message).toMatch(/cursor is not/);
  });

  it('refuses a cursor once it has expired', () => {
    const cursor = seal.seal(binding, 20);
    clock += CURSOR_TTL_MS - 1;
    expect(seal.open(cursor, binding)).toBe(20);
    clock += 1;
    expect(refusal(() => seal.open(cursor, binding)).message).toMatch(/cursor has expired/);
  });
});

describe('withNextCursor', () => {
  const seal = new CursorSeal('a-deployment-secret-of-enough-length');

  it('points past the page when more follow, and is absent on the last page', () => {
    const page = { items: [1, 2, 3], limit: 3, has_more: true };
    const next = (withNextCursor(page, page.items.length, seal, binding, 30) as { next_cursor?: string })
      .next_cursor;
    expect(seal.open(String(next), binding)).toBe(33);
    expect(
      withNextCursor({ ...page, has_more: false }, page.items.length, seal, binding, 30),
    ).not.toHaveProperty('next_cursor');
  });

  it('makes no cursor beyond the deepest offset', () => {
    const page = { items: [1], limit: 1, has_more: true };
    expect(withNextCursor(page, page.items.length, seal, binding, CURSOR_MAX_OFFSET)).not.toHaveProperty(
      'next_cursor',
    );
  });
});
