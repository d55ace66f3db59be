import { allTools } from '@svc/tool-catalog';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, connectMcp, connectModernMcp } from './support';

// Answers an agent can afford, over the whole stack (one spawned stack, a handful of calls): a
// result budget set per call (REST header, MCP `_meta` in both eras) cuts a list to valid JSON of
// its schema with a cursor, following the cursors yields the whole list once, and a cursor of
// another call or a budget out of range is a 400 naming it.

const HINT = 'anthropic/maxResultSizeChars';
interface LogPage {
  items: { session_id: string | null }[];
  has_more: boolean;
  next_cursor?: string;
  omitted?: Record<string, number>;
}
/** The tool's own output schema: every answer, cut or not, must pass it. */
const outputOf = (name: string) => {
  const tool = allTools.find((t) => t.name === name)!;
  return { parse: (value: unknown) => tool.output.parse(value) as LogPage };
};
const logBySessionOutput = outputOf('log.by_session');
const logRecentOutput = outputOf('log.recent');
let stack: SpawnedStack;
let authorization: string;

beforeAll(async () => {
  stack = await spawnStack();
  authorization = bearer(stack.ready.token!);
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.dispose();
});

async function rest(tool: string, args: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.ready.urls.gateway}/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization, ...headers },
    body: JSON.stringify(args),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

describe('result budgets and cursors over the stack', () => {
  it('REST: a session paged under a 1,000-character budget is the whole session, once, in order', async () => {
    const recent = logRecentOutput.parse((await rest('log.recent', { limit: 200 })).body);
    const counts = new Map<string, number>();
    for (const l of recent.items)
      if (l.session_id) counts.set(l.session_id, (counts.get(l.session_id) ?? 0) + 1);
    const [session] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const whole = logBySessionOutput.parse(
      (await rest('log.by_session', { session_id: session, limit: 1000 })).body,
    );
    expect(whole.has_more).toBe(false);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await rest(
        'log.by_session',
        { session_id: session, limit: 1000, ...(cursor ? { cursor } : {}) },
        { 'X-Max-Result-Chars': '1000' },
      );
      expect(page.status).toBe(200);
      const body = logBySessionOutput.parse(page.body);
      // Within the budget, unless one line alone is over it (a page always carries one).
      if (body.items.length > 1) expect(page.text.length).toBeLessThanOrEqual(1000);
      seen.push(...body.items);
      cursor = body.next_cursor;
      if (cursor) expect(body).toMatchObject({ truncated: true, has_more: true });
      pages += 1;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(whole.items);
  });

  it('REST: a cursor of other arguments and a budget out of range are 400s naming them', async () => {
    const first = await rest('log.recent', { limit: 2 });
    const other = await rest('log.recent', { limit: 2, level: 'ERROR', cursor: first.body.next_cursor });
    expect(other.status).toBe(400);
    expect(other.body.details).toEqual([expect.objectContaining({ path: 'cursor' })]);
    const budget = await rest('log.recent', { limit: 2 }, { 'X-Max-Result-Chars': '10' });
    expect(budget.status).toBe(400);
    expect(budget.body.message).toContain('X-Max-Result-Chars must be an integer from 1000');
  });

  it('MCP, both eras: every tool declares its size hint, and a call’s _meta budget cuts the answer', async () => {
    const legacy = await connectMcp(stack.ready.urls.mcp, authorization);
    const modern = await connectModernMcp(stack.ready.urls.mcp, authorization);
    try {
      for (const mcp of [legacy, modern]) {
        const { tools } = await mcp.listTools();
        expect(tools.filter((t) => typeof t._meta?.[HINT] !== 'number').map((t) => t.name)).toEqual([]);
        const answer = await mcp.callTool({
          name: 'log.recent',
          arguments: { limit: 50 },
          _meta: { [HINT]: 2000 },
        });
        const structured = logRecentOutput.parse(answer.structuredContent);
        expect(JSON.stringify(answer.structuredContent).length).toBeLessThanOrEqual(2000);
        expect(structured).toMatchObject({
          truncated: true,
          has_more: true,
          next_cursor: expect.any(String),
        });
        expect(structured.omitted?.items).toBe(50 - structured.items.length);
      }
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
