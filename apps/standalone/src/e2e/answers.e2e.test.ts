import { allTools } from '@svc/tool-catalog';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { eventually, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import {
  adminCall,
  adminOf,
  bearer,
  connectMcp,
  connectModernMcp,
  type IngestKey,
  ingestBatch,
} from './support';

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

// A trace of 1,500 spans (a tree four wide, five services, some failed, a few attributes each)
// stored once in the stack's demo project, for trace.get's pages.
const BIG_TRACE = 'b16b16b16b16b16b16b16b16b16b16b1';
const BIG_SPANS = 1500;
const spanId = (i: number) => (0x5000 + i).toString(16).padStart(16, '0');
const bigTrace = Array.from({ length: BIG_SPANS }, (_, i) => ({
  trace_id: BIG_TRACE,
  span_id: spanId(i),
  ...(i === 0 ? {} : { parent_span_id: spanId(Math.floor((i - 1) / 4)) }),
  kind: i % 3 === 0 ? 'server' : 'client',
  status: i % 375 === 7 ? ('error' as const) : ('ok' as const),
  operation: i === 0 ? 'GET /big' : `call ${i % 17}`,
  service: `svc-${i % 5}`,
  start_time: new Date(Date.now() - 10 * 60_000 + i).toISOString(),
  duration_ms: i === 0 ? 5000 : (i % 40) + 1,
  attributes: { 'http.route': `/route/${i % 10}`, 'peer.service': `svc-${(i + 1) % 5}` },
}));

interface TracePage {
  span_count: number;
  truncated: boolean;
  has_more: boolean;
  next_cursor?: string;
  spans: { span_id: string; children: unknown[] }[];
  summary: { spans: number; errors: number }[];
  critical_path: { span_id: string }[];
  error_spans: unknown[];
  error_span_count: number;
}
const traceGetOutput = { parse: (v: unknown) => outputOf('trace.get').parse(v) as unknown as TracePage };
const spanIdsOf = (nodes: TracePage['spans']): string[] =>
  nodes.flatMap((n) => [n.span_id, ...spanIdsOf(n.children as TracePage['spans'])]);

let bigTraceStored: Promise<void> | undefined;
/** Stores the large trace once (the first test that needs it), and waits until all of it reads back. */
function storeBigTrace(): Promise<void> {
  bigTraceStored ??= (async () => {
    const key = await adminCall<IngestKey>(adminOf(stack), 'POST', '/internal/v1/admin/ingest-keys', {
      project_id: stack.ready.project_id,
    });
    for (let i = 0; i < BIG_SPANS; i += 1000) {
      const res = await ingestBatch(stack.ready.urls.core, key, { spans: bigTrace.slice(i, i + 1000) });
      expect(res.status).toBe(200);
    }
    await eventually('the large trace stored whole', async () => {
      const { body } = await rest('trace.get', { trace_id: BIG_TRACE, limit: 1 });
      return body.span_count === BIG_SPANS;
    });
  })();
  return bigTraceStored;
}

/** What every page of the large trace says of the whole trace. */
function expectWholeTrace(page: TracePage): void {
  expect(page.span_count).toBe(BIG_SPANS);
  expect(page.summary.reduce((n, g) => n + g.spans, 0)).toBe(BIG_SPANS);
  expect(page.error_span_count).toBe(bigTrace.filter((s) => s.status === 'error').length);
  expect(page.critical_path[0]?.span_id).toBe(spanId(0));
}

async function rest(tool: string, args: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.ready.urls.gateway}/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization, ...headers },
    body: JSON.stringify(args),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

/** An answer's lists by path (top level and one level down), as a result budget cuts them. */
function listsByPath(answer: Record<string, unknown>): Map<string, unknown[]> {
  const lists = new Map<string, unknown[]>();
  for (const [key, value] of Object.entries(answer)) {
    if (Array.isArray(value)) lists.set(key, value);
    else if (value && typeof value === 'object') {
      for (const [inner, v] of Object.entries(value)) if (Array.isArray(v)) lists.set(`${key}.${inner}`, v);
    }
  }
  return lists;
}

/** The session with the most log lines among the latest 200: a detail answer of some size. */
async function busySession(): Promise<string> {
  const recent = logRecentOutput.parse((await rest('log.recent', { limit: 200 })).body);
  const counts = new Map<string, number>();
  for (const l of recent.items)
    if (l.session_id) counts.set(l.session_id, (counts.get(l.session_id) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}

/**
 * Follows a cut answer's continuation cursors to the end (`ask` makes one call), checking each part
 * against the tool's schema and the budget; answers every list's items put back together.
 */
async function followContinuation(
  tool: string,
  budget: number,
  ask: (cursor: string | undefined) => Promise<{ text: string; body: Record<string, unknown> }>,
): Promise<{ parts: number; lists: Map<string, unknown[]> }> {
  const lists = new Map<string, unknown[]>();
  let cursor: string | undefined;
  let parts = 0;
  do {
    const { text, body } = await ask(cursor);
    outputOf(tool).parse(body);
    expect(text.length).toBeLessThanOrEqual(budget);
    expect(body.continued === undefined).toBe(parts === 0);
    for (const [path, items] of listsByPath(body)) lists.set(path, [...(lists.get(path) ?? []), ...items]);
    cursor = body.next_cursor as string | undefined;
    if (cursor) expect(body.truncated).toBe(true);
    parts += 1;
  } while (cursor && parts < 200);
  return { parts, lists };
}

describe('result budgets and cursors over the stack', () => {
  it('REST: a session paged under a 1,000-character budget is the whole session, once, in order', async () => {
    const session = await busySession();
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

  it('REST: trace.get of 1,500 spans by pages of 500 under a 100,000-character budget is cut to the spans that fit, and its cursors page through every span once', async () => {
    await storeBigTrace();
    const PAGE = 500;
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await rest(
        'trace.get',
        { trace_id: BIG_TRACE, limit: PAGE, ...(cursor ? { cursor } : {}) },
        { 'X-Max-Result-Chars': '100000' },
      );
      expect(res.status).toBe(200);
      expect(res.text.length).toBeLessThanOrEqual(100_000);
      const page = traceGetOutput.parse(res.body);
      expectWholeTrace(page);
      seen.push(...spanIdsOf(page.spans));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== undefined);
      pages += 1;
    } while (cursor);
    // More pages than 500 spans a page would make: the budget cut them, and each cut went on.
    expect(pages).toBeGreaterThan(BIG_SPANS / PAGE);
    expect(seen).toHaveLength(BIG_SPANS);
    expect(new Set(seen)).toEqual(new Set(bigTrace.map((s) => s.span_id)));
  });

  it('MCP, both eras: trace.get of 1,500 spans answers within the budget with the whole trace summed up, and its cursor pages on', async () => {
    await storeBigTrace();
    const legacy = await connectMcp(stack.ready.urls.mcp, authorization);
    const modern = await connectModernMcp(stack.ready.urls.mcp, authorization);
    try {
      for (const mcp of [legacy, modern]) {
        const first = await mcp.callTool({
          name: 'trace.get',
          arguments: { trace_id: BIG_TRACE, limit: 2000 },
        });
        expect(JSON.stringify(first.structuredContent).length).toBeLessThanOrEqual(100_000);
        const page = traceGetOutput.parse(first.structuredContent);
        expectWholeTrace(page);
        expect(page).toMatchObject({ truncated: true, has_more: true, next_cursor: expect.any(String) });
        const next = await mcp.callTool({
          name: 'trace.get',
          arguments: { trace_id: BIG_TRACE, limit: 2000, cursor: page.next_cursor },
        });
        const second = traceGetOutput.parse(next.structuredContent);
        // The second page starts where the first stopped, in start order.
        const firstIds = spanIdsOf(page.spans);
        const secondIds = spanIdsOf(second.spans);
        expect(firstIds.length + secondIds.length).toBeLessThanOrEqual(BIG_SPANS);
        expect(new Set([...firstIds, ...secondIds])).toEqual(
          new Set(bigTrace.slice(0, firstIds.length + secondIds.length).map((s) => s.span_id)),
        );
      }
    } finally {
      await legacy.close();
      await modern.close();
    }
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

  it('a cut answer that is not a list (session.detail) continues by next_cursor to every item of every list, over REST and MCP in both eras', async () => {
    const session = await busySession();
    const args = { session_id: session, limit: 40 };
    const whole = await rest('session.detail', args);
    expect(whole.text.length).toBeGreaterThan(12_000);
    const expected = listsByPath(whole.body);
    const viaRest = await followContinuation('session.detail', 6000, async (cursor) =>
      rest('session.detail', { ...args, ...(cursor ? { cursor } : {}) }, { 'X-Max-Result-Chars': '6000' }),
    );
    expect(viaRest.parts).toBeGreaterThan(2);
    expect(viaRest.lists).toEqual(expected);
    const legacy = await connectMcp(stack.ready.urls.mcp, authorization);
    const modern = await connectModernMcp(stack.ready.urls.mcp, authorization);
    try {
      for (const mcp of [legacy, modern]) {
        const viaMcp = await followContinuation('session.detail', 6000, async (cursor) => {
          const answer = await mcp.callTool({
            name: 'session.detail',
            arguments: { ...args, ...(cursor ? { cursor } : {}) },
            _meta: { [HINT]: 6000 },
          });
          return {
            text: JSON.stringify(answer.structuredContent),
            body: answer.structuredContent as Record<string, unknown>,
          };
        });
        expect(viaMcp.lists).toEqual(expected);
      }
      // Another session's arguments with this cursor are refused, naming cursor.
      const first = await rest('session.detail', args, { 'X-Max-Result-Chars': '2000' });
      const other = await rest('session.detail', { ...args, limit: 99, cursor: first.body.next_cursor });
      expect(other.status).toBe(400);
      expect(other.body.details).toEqual([expect.objectContaining({ path: 'cursor' })]);
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});
