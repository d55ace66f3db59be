// Test-only: tools, principals and an executor for the bindings' tests (subpath ./testing).

import { isMainThread } from 'node:worker_threads';
import type { AuditEntry, AuditSink } from '@svc/audit';
import { UserInputError } from '@svc/errors';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics, type Metrics } from '@svc/metrics';
import { defineTool, limit, listOf, type Principal } from '@svc/tool-kit';
import { z } from 'zod';
import { ToolExecutor } from '../executor';
import { ToolRegistry } from '../registry';

export class MemoryAuditSink implements AuditSink {
  entries: AuditEntry[] = [];
  failing = false;
  async write(entries: AuditEntry[]): Promise<void> {
    if (this.failing) throw new Error('audit store down');
    this.entries.push(...entries);
  }
}

export const echoTool = defineTool({
  name: 'demo.echo',
  title: 'Echo',
  description: 'Echoes the word back with the project it ran for.',
  input: z.strictObject({ word: z.string().min(1), limit: limit(5) }),
  output: listOf(z.strictObject({ word: z.string(), project: z.string() })),
  capability: 'base',
  backend: 'core',
  example: { word: 'hi' },
  overview: true,
  handler: async (input, ctx) => {
    if (input.word === 'boom') throw new Error('database said: secret internals');
    if (input.word === 'bad') throw new UserInputError('bad word');
    if (input.word === 'shape') return { items: [{ word: 1 }], limit: 1, has_more: false } as never;
    return { items: [{ word: input.word, project: ctx.projectId }], limit: input.limit, has_more: false };
  },
});

export const traceOnlyTool = defineTool({
  name: 'demo.traced',
  title: 'Traced',
  description: 'Visible only with vis_trace.',
  input: z.strictObject({}),
  output: z.strictObject({ ok: z.boolean() }),
  capability: 'vis_trace',
  backend: 'core',
  example: {},
  handler: async () => ({ ok: true }),
});

export const recallTool = defineTool({
  name: 'demo.recall',
  title: 'Recall',
  description: 'Served by the recall backend.',
  input: z.strictObject({}),
  output: z.strictObject({ ok: z.boolean() }),
  capability: 'base',
  backend: 'recall',
  example: {},
  handler: async () => ({ ok: true }),
});

/**
 * Forwarded to the core as tools are by default. A row labelled 'die' ends the answer worker that
 * checks it (never the main thread): how the tests see a worker lost mid-answer.
 */
export const rowsTool = defineTool({
  name: 'demo.rows',
  title: 'Rows',
  description: 'Rows from the core.',
  input: z.strictObject({}),
  output: z.strictObject({
    rows: z.array(
      z.strictObject({
        n: z.number(),
        label: z
          .string()
          .default('none')
          .refine((label) => {
            if (label === 'die' && !isMainThread) process.exit(3);
            return true;
          }),
      }),
    ),
  }),
  capability: 'base',
  backend: 'core',
  example: {},
});

export function principal(overrides: Partial<Principal> = {}): Principal {
  return {
    tokenId: 'tok_1',
    userId: 'usr_1',
    orgId: 'org_1',
    projectId: 'prj_a',
    capabilities: new Set(),
    ...overrides,
  };
}

export function makeExecutor(options: { recallUp?: boolean; metrics?: Metrics } = {}) {
  const audit = new MemoryAuditSink();
  let clock = 1_700_000_000_000;
  const executor = new ToolExecutor({
    registry: new ToolRegistry([echoTool, traceOnlyTool, recallTool]),
    audit,
    backends: {},
    isBackendAvailable: (b) => b === 'core' || (b === 'recall' && options.recallUp === true),
    logger: silentLogger,
    metrics: options.metrics ?? createNoopMetrics(),
    now: () => (clock += 7),
  });
  return { executor, audit };
}
