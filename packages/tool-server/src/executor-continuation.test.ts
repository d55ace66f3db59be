import { UserInputError } from '@svc/errors';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { defineTool, limit } from '@svc/tool-kit';
import { z } from 'zod';
import { CursorSeal } from './cursor';
import { ToolExecutor } from './executor';
import { ToolRegistry } from './registry';
import { MemoryAuditSink, principal } from './testing/fixtures';

// A detail answer (not a list page) too large for a small budget, as a backend would compute it
// afresh for every call: the executor cuts it and continues it by cursor.
const lines = Array.from({ length: 300 }, (_, i) => `line ${String(i).padStart(3, '0')} of the session`);
const received: Record<string, unknown>[] = [];
const detailTool = defineTool({
  name: 'demo.session',
  title: 'Session',
  description: 'Returns a session.',
  input: z.strictObject({ id: z.string(), limit: limit(300) }),
  output: z.strictObject({
    id: z.string(),
    logs: z.strictObject({ total: z.number().int(), items: z.array(z.string()) }),
    platforms: z.array(z.string()),
  }),
  capability: 'base',
  backend: 'core',
  example: { id: 's1' },
  handler: async (input) => {
    received.push(input as Record<string, unknown>);
    return {
      id: input.id,
      logs: { total: lines.length, items: lines.slice(0, input.limit) },
      platforms: ['ios'],
    };
  },
});

function executor() {
  return new ToolExecutor({
    registry: new ToolRegistry([detailTool]),
    audit: new MemoryAuditSink(),
    backends: {},
    isBackendAvailable: () => true,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    cursors: new CursorSeal('the-internal-secret-of-this-test'),
  });
}

const call = (args: Record<string, unknown>, budget?: number, p = principal()) => ({
  principal: p,
  tool: 'demo.session',
  args,
  transport: 'mcp' as const,
  requestId: 'req-1',
  ...(budget === undefined ? {} : { resultBudget: { value: budget, named: '_meta' } }),
});

describe('ToolExecutor: a cut answer continues by its cursor', () => {
  it('answers every line once, in order, in parts within the budget; the handler never sees the cursor', async () => {
    const tools = executor();
    received.length = 0;
    const seen: string[] = [];
    let cursor: string | undefined;
    let parts = 0;
    do {
      const answer = (await tools.call(call({ id: 's1', ...(cursor ? { cursor } : {}) }, 2000))) as {
        logs: { items: string[] };
        platforms: string[];
        next_cursor?: string;
        continued?: Record<string, number>;
      };
      expect(JSON.stringify(answer).length).toBeLessThanOrEqual(2000);
      expect(answer.continued === undefined).toBe(parts === 0);
      if (parts === 0) expect(answer.platforms).toEqual(['ios']);
      seen.push(...answer.logs.items);
      cursor = answer.next_cursor;
      parts += 1;
    } while (cursor !== undefined && parts < 100);
    expect(parts).toBeGreaterThan(3);
    expect(seen).toEqual(lines);
    expect(received.every((input) => !('cursor' in input))).toBe(true);
  });

  it('answers the rest whole to a call with the cursor and no budget (REST without the header)', async () => {
    const tools = executor();
    const first = (await tools.call(call({ id: 's1' }, 2000))) as {
      logs: { items: string[] };
      next_cursor: string;
    };
    const rest = (await tools.call(call({ id: 's1', cursor: first.next_cursor }))) as {
      logs: { items: string[] };
      continued: Record<string, number>;
      truncated?: true;
    };
    expect(rest.continued).toEqual({ 'logs.items': first.logs.items.length });
    expect([...first.logs.items, ...rest.logs.items]).toEqual(lines);
    expect(rest.truncated).toBeUndefined();
  });

  it("refuses the cursor with other arguments (limit included) or another token's, naming cursor", async () => {
    const tools = executor();
    const first = (await tools.call(call({ id: 's1' }, 2000))) as { next_cursor: string };
    for (const refused of [
      call({ id: 's2', cursor: first.next_cursor }),
      call({ id: 's1', limit: 299, cursor: first.next_cursor }),
      call({ id: 's1', cursor: first.next_cursor }, undefined, principal({ tokenId: 'tok_other' })),
      call({ id: 's1', cursor: 'not.ours' }),
    ]) {
      const err = await tools.call(refused).catch((e) => e);
      expect(err).toBeInstanceOf(UserInputError);
      expect(JSON.stringify(err.details)).toContain('"path":"cursor"');
    }
  });
});
