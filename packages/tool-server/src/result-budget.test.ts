import { UserInputError } from '@svc/errors';
import { defineTool, listOf } from '@svc/tool-kit';
import { z } from 'zod';
import { CURSOR_MAX_OFFSET, CursorSeal } from './cursor';
import { clientBudgetOf, continuedAt, withinBudget } from './result-budget';
import { ToolAnswer } from './tool-answer';

const listTool = defineTool({
  name: 'demo.list',
  title: 'List',
  description: 'Returns words.',
  input: z.strictObject({ q: z.string() }),
  output: listOf(z.strictObject({ word: z.string() })),
  capability: 'base',
  backend: 'core',
  example: { q: 'x' },
});
const detailTool = defineTool({
  name: 'demo.detail',
  title: 'Detail',
  description: 'Returns a detail.',
  input: z.strictObject({}),
  output: z.strictObject({
    id: z.string(),
    logs: z.strictObject({ total: z.number(), items: z.array(z.string()) }),
    tags: z.array(z.string()),
  }),
  capability: 'base',
  backend: 'core',
  example: {},
});

const seal = new CursorSeal('a-deployment-secret-of-enough-length');
const binding = { tool: 'demo.list', projectId: 'p', tokenId: 't', input: { q: 'x' } };
const words = Array.from({ length: 200 }, (_, i) => ({ word: `word-${String(i).padStart(4, '0')}` }));

describe('withinBudget', () => {
  it('leaves an answer that fits as it is', () => {
    const answer = ToolAnswer.ofValue({ items: words.slice(0, 3), limit: 3, has_more: false });
    expect(withinBudget(listTool, answer, 1000, { seal, binding, offset: 0 })).toBe(answer);
  });

  it('cuts a page to the items that fit, valid against its schema, with a cursor at the first left out', () => {
    const page = { items: words, limit: 200, has_more: false };
    const cut = withinBudget(listTool, ToolAnswer.ofValue(page), 2000, { seal, binding, offset: 40 }).value;
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(2000);
    const parsed = listTool.output.parse(cut);
    const kept = parsed.items.length;
    expect(kept).toBeGreaterThan(10);
    expect(parsed.items).toEqual(words.slice(0, kept));
    expect(parsed).toMatchObject({ has_more: true, truncated: true, omitted: { items: 200 - kept } });
    expect(seal.open(parsed.next_cursor as string, binding)).toBe(40 + kept);
  });

  it('keeps one item of a page even when it alone is over the budget, so a cursor always moves on', () => {
    const page = { items: [{ word: 'x'.repeat(3000) }, { word: 'y' }], limit: 2, has_more: false };
    const cut = withinBudget(listTool, ToolAnswer.ofValue(page), 1000, { seal, binding, offset: 0 }).value;
    const parsed = listTool.output.parse(cut);
    expect(parsed.items).toEqual([page.items[0]]);
    expect(seal.open(parsed.next_cursor as string, binding)).toBe(1);
  });

  it('shortens the longest lists of any other answer, counting each by its path', () => {
    const many = Array.from({ length: 500 }, (_, i) => `line ${i}`);
    const detail = { id: 'u1', logs: { total: 500, items: many }, tags: ['a', 'b'] };
    const cut = withinBudget(detailTool, ToolAnswer.ofValue(detail), 1500, undefined).value;
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(1500);
    const parsed = detailTool.output.parse(cut);
    expect(parsed.tags).toEqual(['a', 'b']);
    expect(parsed.logs.items).toEqual(many.slice(0, parsed.logs.items.length));
    expect(parsed).toMatchObject({
      truncated: true,
      omitted: { 'logs.items': 500 - parsed.logs.items.length },
    });
  });
});

describe('clientBudgetOf', () => {
  it('takes an integer in range, from a number or a header text', () => {
    expect(clientBudgetOf(undefined, 'demo.list', 'X')).toBeUndefined();
    expect(clientBudgetOf(5000, 'demo.list', 'X')).toBe(5000);
    expect(clientBudgetOf(' 5000 ', 'demo.list', 'X')).toBe(5000);
  });

  it.each([[12], ['lots'], [1.5], [10_000_000]])('refuses %p, naming the field', (value) => {
    expect(() => clientBudgetOf(value, 'demo.list', 'X-Max-Result-Chars')).toThrow(UserInputError);
    expect(() => clientBudgetOf(value, 'demo.list', 'X-Max-Result-Chars')).toThrow(
      /X-Max-Result-Chars must be an integer from 1000 to 1000000/,
    );
  });
});

interface BudgetFields {
  truncated?: true;
  omitted?: Record<string, number>;
  next_cursor?: string;
  continued?: Record<string, number>;
}

describe('continuing a cut answer that is not a list page', () => {
  const detailBinding = { tool: 'demo.detail', projectId: 'p', tokenId: 't', input: {} };
  const many = Array.from({ length: 400 }, (_, i) => `line ${i}`);
  const tags = Array.from({ length: 150 }, (_, i) => `tag-${i}`);
  const whole = { id: 'u1', logs: { total: 400, items: many }, tags };

  // What the executor does with each call: the whole answer, continued at the cursor's positions, cut.
  function part(budget: number, cursor: string | undefined) {
    const continued = cursor === undefined ? undefined : seal.openContinuation(cursor, detailBinding);
    const value = continued ? continuedAt(whole, continued) : whole;
    const paging = { seal, binding: detailBinding, offset: 0, ...(continued ? { continued } : {}) };
    const cut = withinBudget(detailTool, ToolAnswer.ofValue(value), budget, paging).value;
    return detailTool.output.parse(cut) as ReturnType<typeof detailTool.output.parse> & BudgetFields;
  }

  it('gives every item of every list once, in order, each part within the budget', () => {
    const seen = { lines: [] as string[], tags: [] as string[] };
    let cursor: string | undefined;
    let parts = 0;
    do {
      const answer = part(1200, cursor);
      expect(JSON.stringify(answer).length).toBeLessThanOrEqual(1200);
      expect(answer.id).toBe('u1');
      seen.lines.push(...answer.logs.items);
      seen.tags.push(...answer.tags);
      cursor = answer.next_cursor;
      parts += 1;
    } while (cursor !== undefined && parts < 200);
    expect(parts).toBeGreaterThan(2);
    expect(seen).toEqual({ lines: many, tags });
  });

  it('says where each continued list starts, and leaves the lists that were whole empty', () => {
    const first = part(3000, undefined);
    // The cut took what the budget could not hold from the longest list (the lines) and kept the tags whole.
    expect(first.omitted).toEqual({ 'logs.items': 400 - first.logs.items.length });
    expect(first.tags).toEqual(tags);
    const second = part(1_000_000, first.next_cursor);
    expect(second.continued).toEqual({ 'logs.items': first.logs.items.length });
    expect(second.tags).toEqual([]);
    expect(second.logs.items).toEqual(many.slice(first.logs.items.length));
    expect(second.truncated).toBeUndefined();
    expect(second.next_cursor).toBeUndefined();
  });

  it("moves on by one item when each list's first item alone is over the budget", () => {
    const big = { id: 'u1', logs: { total: 2, items: ['x'.repeat(2000), 'y'] }, tags: [] };
    const cut = withinBudget(detailTool, ToolAnswer.ofValue(big), 1000, {
      seal,
      binding: detailBinding,
      offset: 0,
    }).value as { next_cursor: string; logs: { items: string[] } };
    expect(cut.logs.items).toEqual([big.logs.items[0]]);
    expect(seal.openContinuation(cut.next_cursor, detailBinding)).toEqual({ 'logs.items': 1 });
  });

  it('binds the cursor to the arguments limit included, and keeps it apart from a page cursor', () => {
    const limited = { ...detailBinding, input: { limit: 5 } };
    const cursor = seal.sealContinuation(limited, { tags: 3 });
    expect(() => seal.openContinuation(cursor, { ...detailBinding, input: { limit: 6 } })).toThrow(
      UserInputError,
    );
    expect(() => seal.open(cursor, limited)).toThrow(UserInputError);
    expect(() => seal.openContinuation(seal.seal(limited, 3), limited)).toThrow(UserInputError);
    expect(seal.openContinuation(cursor, limited)).toEqual({ tags: 3 });
  });
});

describe('the deepest cursor', () => {
  it('cuts a page past the deepest offset a cursor may carry without a cursor, has_more still true', () => {
    const page = { items: words, limit: 200, has_more: false };
    const cut = withinBudget(listTool, ToolAnswer.ofValue(page), 2000, {
      seal,
      binding,
      offset: CURSOR_MAX_OFFSET,
    }).value as { has_more: boolean; next_cursor?: string; truncated?: true };
    expect(cut).toMatchObject({ has_more: true, truncated: true });
    expect(cut.next_cursor).toBeUndefined();
  });
});
