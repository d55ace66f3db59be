import { UserInputError } from '@svc/errors';
import { defineTool, listOf } from '@svc/tool-kit';
import { z } from 'zod';
import { CursorSeal } from './cursor';
import { clientBudgetOf, withinBudget } from './result-budget';
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
