import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { ACTOR_HEADER, defineTool } from '@svc/tool-kit';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { CursorSeal } from './cursor';
import { httpErrorHandler } from './http-errors';
import { type InternalToolCall, internalToolRoutes } from './internal-tools';
import { withinBudget } from './result-budget';
import { serveWith } from './serve';
import { ToolAnswer } from './tool-answer';

// A tool paging something other than `items` (as trace.get pages spans): its definition's `pages`
// tells the backends' route where the next page starts and the executor how to cut it to a budget.

const ROWS = Array.from({ length: 7 }, (_, i) => `row-${i}-${'x'.repeat(40)}`);

const rowsTool = defineTool({
  name: 'demo.rows',
  title: 'Rows',
  description: 'Rows of a thing, paged.',
  input: z.strictObject({ limit: z.number().int().default(3) }),
  output: z.strictObject({
    total: z.number().int(),
    block: z.strictObject({ rows: z.array(z.string()) }),
    has_more: z.boolean(),
    next_cursor: z.string().optional(),
  }),
  capability: 'base',
  backend: 'core',
  example: {},
  pages: {
    length: (answer) => answer.block.rows.length,
    cut: (answer, budget, cursorAt) => {
      let kept = answer.block.rows.length;
      const at = (n: number) => ({
        ...answer,
        block: { rows: answer.block.rows.slice(0, n) },
        has_more: true,
        next_cursor: cursorAt(n),
        truncated: true,
      });
      while (kept > 1 && JSON.stringify(at(kept)).length > budget) kept--;
      return at(kept);
    },
  },
});

const seal = new CursorSeal('the-internal-secret-of-this-test');
const actor = JSON.stringify({ token_id: 'tok', user_id: 'u1', transport: 'rest' });

describe('a tool paged by its own `pages`', () => {
  const serve = serveWith<{ offset: number }>();
  const rows = serve(rowsTool, async ({ offset }, input) => ({
    total: ROWS.length,
    block: { rows: ROWS.slice(offset, offset + input.limit) },
    has_more: offset + input.limit < ROWS.length,
  }));
  const app = express();
  app.use(
    '/internal',
    internalToolRoutes({
      tools: [rows],
      admit: (call: InternalToolCall, _tool, answer) => answer({ offset: call.offset }),
      metrics: createNoopMetrics(),
      counter: 't_calls',
      cursors: seal,
    }),
  );
  app.use(httpErrorHandler(silentLogger));
  const call = (body: object) =>
    request(app).post('/internal/v1/projects/p1/tools/demo.rows').set(ACTOR_HEADER, actor).send(body);

  it('takes a cursor, and the route seals next_cursor at its offset plus the page length', async () => {
    expect(rowsTool.paged).toBe(true);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await call({ limit: 3, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      seen.push(...res.body.block.rows);
      cursor = res.body.next_cursor;
      expect(cursor === undefined).toBe(!res.body.has_more);
    } while (cursor);
    expect(seen).toEqual(ROWS);
  });

  it("is cut by the executor's budget through its own cut, the cursor at the first row left out", async () => {
    const binding = { tool: 'demo.rows', projectId: 'p1', tokenId: 'tok', input: { limit: 3 } };
    // As the route answered it: the next page's cursor at 6.
    const answer = {
      total: 7,
      block: { rows: ROWS.slice(3, 6) },
      has_more: true,
      next_cursor: seal.seal(binding, 6),
    };
    // Room for two rows and the cut's own fields, not for three.
    const budget = JSON.stringify({
      ...answer,
      block: { rows: ROWS.slice(3, 5) },
      next_cursor: seal.seal(binding, 5),
      truncated: true,
    }).length;
    const cut = withinBudget(rowsTool, ToolAnswer.ofValue(answer), budget, {
      seal,
      binding,
      offset: 3,
    }).value;
    expect(cut).toMatchObject({ block: { rows: ROWS.slice(3, 5) }, has_more: true, truncated: true });
    expect(seal.open(cut.next_cursor as string, binding)).toBe(5);
    // The route goes on from there.
    const next = await call({ limit: 3, cursor: cut.next_cursor });
    expect(next.body.block.rows).toEqual(ROWS.slice(5, 7));
  });
});
