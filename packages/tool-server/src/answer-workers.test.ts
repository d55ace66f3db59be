import { readdirSync, readFileSync } from 'node:fs';
import { InternalError } from '@svc/errors';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { type BackendCallOptions, type BackendToolCaller, UnparsedAnswer } from '@svc/tool-kit';
import express from 'express';
import request from 'supertest';
import { AnswerWorkers, type AnswerWorkersOptions } from './answer-workers';
import { ToolExecutor } from './executor';
import { ToolRegistry } from './registry';
import { createRestRouter } from './rest-binding';
import { echoTool, MemoryAuditSink, principal, rowsTool } from './testing/fixtures';

const FIXTURE = new URL('./testing/answer-worker-fixture.ts', import.meta.url);
const FROM_BYTES = 64;

/** A core that answers with `answer`, unparsed when the call asks for it (as the backend client does). */
function core(answer: () => string) {
  const seen: BackendCallOptions[] = [];
  const caller: BackendToolCaller = {
    async callTool(_project, _tool, _input, options) {
      seen.push(options);
      const text = answer();
      const bytes = new TextEncoder().encode(text);
      if (options.unparsedFrom !== undefined && bytes.byteLength >= options.unparsedFrom) {
        return new UnparsedAnswer(bytes);
      }
      return JSON.parse(text);
    },
  };
  return { caller, seen };
}

function executor(caller: BackendToolCaller, workers?: AnswerWorkers) {
  const audit = new MemoryAuditSink();
  const exec = new ToolExecutor({
    registry: new ToolRegistry([echoTool, rowsTool]),
    audit,
    backends: { core: caller },
    isBackendAvailable: () => true,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    ...(workers ? { answerWorkers: workers } : {}),
  });
  return { exec, audit };
}

const call = {
  principal: principal(),
  tool: 'demo.rows',
  args: {},
  transport: 'rest' as const,
  requestId: 'r',
};
const rows = (n: number, label?: string) =>
  JSON.stringify({ rows: Array.from({ length: n }, (_, i) => ({ n: i, ...(label ? { label } : {}) })) });

let workers: AnswerWorkers;

function pool(overrides: Partial<AnswerWorkersOptions> = {}) {
  return new AnswerWorkers({
    module: FIXTURE,
    workers: 1,
    fromBytes: FROM_BYTES,
    niceness: 7,
    maxHeapMb: 64,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    ...overrides,
  });
}

beforeAll(async () => {
  workers = pool();
  await until(() => workers.serves('demo.rows'));
});

afterAll(() => workers.close());

async function until(condition: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('answer workers', () => {
  it('check a large answer off the event loop and give the same result as inline, as JSON bytes', async () => {
    const { caller, seen } = core(() => rows(50));
    const inWorker = await executor(caller, workers).exec.execute(call);
    const inline = await executor(caller).exec.execute(call);
    expect(seen.map((o) => o.unparsedFrom)).toEqual([FROM_BYTES, undefined]);
    expect(inWorker.bytes).toBeInstanceOf(Buffer);
    expect(inline.bytes).toBeUndefined();
    // The schema's output, defaults filled in, whichever thread checked it.
    expect(inWorker.value).toEqual(inline.value);
    expect(inWorker.value.rows).toContainEqual({ n: 3, label: 'none' });
    expect(JSON.parse(inWorker.text)).toEqual(inline.value);
  });

  it('leave small answers, and tools no worker serves, to the event loop', async () => {
    const small = core(() => rows(1));
    expect((await executor(small.caller, workers).exec.execute(call)).bytes).toBeUndefined();
    const echo = core(() => '{}');
    const answer = await executor(echo.caller, workers).exec.execute({
      ...call,
      tool: 'demo.echo',
      args: { word: 'x' },
    });
    expect(answer.value).toEqual({ items: [{ word: 'x', project: 'prj_a' }], limit: 5, has_more: false });
    expect(workers.serves('demo.nope')).toBe(false);
  });

  it('refuse an answer outside the schema, or not JSON, as inline: an internal error without its text', async () => {
    for (const text of [`${rows(20).slice(0, -1)},"secret":"table users"}`, `not json ${'x'.repeat(100)}`]) {
      const { caller } = core(() => text);
      const { exec, audit } = executor(caller, workers);
      const err = await exec.execute(call).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InternalError);
      expect((err as Error).message).not.toMatch(/secret|json/i);
      expect(audit.entries.map((e) => e.status)).toEqual(['error']);
    }
  });

  it('send the JSON bytes over REST as they are', async () => {
    const { caller } = core(() => rows(40));
    const app = express();
    app.use(express.json());
    app.use(
      createRestRouter({
        executor: executor(caller, workers).exec,
        principalOf: () => principal(),
        requestIdOf: () => 'r',
      }),
    );
    const res = await request(app).post('/v1/tools/demo.rows').send({});
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.rows).toHaveLength(40);
    expect(res.body.rows[0]).toEqual({ n: 0, label: 'none' });
  });

  it('lose only the answer a dying worker held, and start another', async () => {
    const { caller } = core(() => rows(20, 'die'));
    const err = await executor(caller, workers)
      .exec.execute(call)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalError);
    expect((err as Error).message).toBe('The result could not be checked.');
    await until(() => workers.serves('demo.rows'));
    const fine = core(() => rows(30));
    expect((await executor(fine.caller, workers).exec.execute(call)).value.rows).toHaveLength(30);
  });

  it('start no thread before an answer needs one, and stop one idle for idleMs', async () => {
    const lazy = pool({ idleMs: 300 });
    try {
      expect(lazy.threads).toBe(0);
      // Small answers never start one.
      const small = core(() => rows(1));
      expect((await executor(small.caller, lazy).exec.execute(call)).value.rows).toHaveLength(1);
      expect(lazy.threads).toBe(0);
      const { caller } = core(() => rows(50));
      // The first large answer is checked inline and starts a worker, which tells the pool its tools.
      const first = await executor(caller, lazy).exec.execute(call);
      expect(first.bytes).toBeUndefined();
      expect(lazy.threads).toBe(1);
      await until(() => lazy.serves('demo.rows'));
      expect((await executor(caller, lazy).exec.execute(call)).bytes).toBeInstanceOf(Buffer);
      await until(() => lazy.threads === 0);
      // Stopped for idleness, not failed: the next answer starts a worker again at once.
      expect(lazy.serves('demo.rows')).toBe(true);
      expect((await executor(caller, lazy).exec.execute(call)).bytes).toBeInstanceOf(Buffer);
    } finally {
      await lazy.close();
    }
  });

  it('check answers inline when no worker will start', async () => {
    const broken = pool({ module: new URL('./testing/no-such-worker.ts', import.meta.url) });
    try {
      const { caller } = core(() => rows(50));
      for (let i = 0; i < 3; i++) {
        const answer = await executor(caller, broken).exec.execute(call);
        expect(answer.value.rows).toHaveLength(50);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(broken.serves('demo.rows')).toBe(false);
    } finally {
      await broken.close();
    }
  });

  it('run at a lower priority than the event loop (Linux: a nice value per thread)', () => {
    if (process.platform !== 'linux') return;
    const nice = (task: string) =>
      Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const values = readdirSync('/proc/self/task').map(nice);
    expect(values).toContain(7);
    expect(nice(String(process.pid))).toBe(0);
  });
});
