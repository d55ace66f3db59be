import { z } from 'zod';
import { defineTool } from './define-tool';
import { listOf } from './schemas';

const tool = (output: z.ZodObject) =>
  defineTool({
    name: 'demo.tool',
    title: 'Demo',
    description: 'Returns a demo.',
    input: z.strictObject({ q: z.string().optional() }),
    output,
    capability: 'base',
    backend: 'core',
    example: {},
  });

describe('defineTool: cursors and the fields a cut answer carries', () => {
  it('makes a listOf tool paged, taking cursor', () => {
    const list = tool(listOf(z.string()));
    expect(list.paged).toBe(true);
    expect(Object.keys(list.input.shape)).toEqual(['q', 'cursor']);
  });

  it('leaves an answer with items and has_more of its own unpaged, though every output may carry next_cursor', () => {
    const own = tool(z.strictObject({ items: z.array(z.string()), has_more: z.boolean() }));
    expect(own.paged).toBe(false);
    expect('next_cursor' in own.output.shape).toBe(true);
    // Its items can be cut, so it takes a cursor to continue them.
    expect('cursor' in own.input.shape).toBe(true);
  });

  it('gives a cursor to an answer with lists one level down, none to an answer without lists', () => {
    const nested = tool(z.strictObject({ logs: z.strictObject({ items: z.array(z.string()).nullable() }) }));
    expect('cursor' in nested.input.shape).toBe(true);
    const flat = tool(z.strictObject({ count: z.number(), window: z.strictObject({ from: z.string() }) }));
    expect('cursor' in flat.input.shape).toBe(false);
    expect(flat.paged).toBe(false);
  });

  it("adds truncated, omitted, next_cursor and continued as optional output fields, keeping a tool's own", () => {
    const own = tool(z.strictObject({ truncated: z.boolean(), rows: z.array(z.number()) }));
    expect(own.output.parse({ truncated: false, rows: [] })).toEqual({ truncated: false, rows: [] });
    expect(() => own.output.parse({ rows: [] })).toThrow();
    const cut = {
      truncated: false,
      rows: [1],
      omitted: { rows: 2 },
      next_cursor: 'c',
      continued: { rows: 1 },
    };
    expect(own.output.parse(cut)).toEqual(cut);
  });
});
