import { createRequire } from 'node:module';
import { join } from 'node:path';
import { formatTraceparent, newSpanId, newTraceId } from '@svc/sdk-core';
import { eventually, STACK_SETUP_TIMEOUT_MS } from '@svc/standalone/testing';
import type { TraceNode } from '../testing/core';
import { startTestStack, type TestStack } from '../testing/stack';
import {
  ORDERS_ESM_SERVER,
  STOCK_CJS_SERVER,
  TSCONFIG_BUNDLER,
  TSCONFIG_NODE16,
  TYPED_CJS,
  TYPED_ESM,
} from './node-apps';
import {
  type AppProcess,
  createApp,
  REPOSITORY_ROOT,
  startAppProcess,
  type ThrowawayApp,
  versionHere,
} from './testing';

// @svc/sdk-node as an app team gets it: the packed tarballs installed by npm into two apps outside
// the repository, an ES module app and a CommonJS one with express, run with plain `node` (no tsx,
// no workspace link) against a spawned stack; one request crosses both, and the stack's own tools
// read back what they sent. A TypeScript consumer type-checks against the installed declarations.

let stack: TestStack;
let ordersApp: ThrowawayApp;
let stockApp: ThrowawayApp;
let stock: AppProcess;
let orders: AppProcess;
/** The TypeScript consumer's checks, started once the app is installed (beside the stack's start). */
let typechecks: Record<'node16' | 'bundler', Promise<string[]>>;

interface Trace {
  found: boolean;
  span_count: number;
  spans: TraceNode[];
}

const express = { express: versionHere('express') };

// The repository's compiler, by absolute path; every declaration it reads comes from the app.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Type-checks the app's project; resolves with the files the compiler read. */
async function typecheck(app: ThrowawayApp, project: string): Promise<string[]> {
  const { stdout } = await app.run(process.execPath, [tsc, '-p', project, '--listFiles']);
  return stdout.split('\n').filter(Boolean);
}

function startTypechecks(app: ThrowawayApp) {
  const started = {
    node16: typecheck(app, 'tsconfig.node16.json'),
    bundler: typecheck(app, 'tsconfig.bundler.json'),
  };
  // Awaited by their tests; a failure is reported there, not as an unhandled rejection here.
  for (const check of Object.values(started)) check.catch(() => undefined);
  return started;
}

beforeAll(async () => {
  [stack, ordersApp, stockApp] = await Promise.all([
    startTestStack(),
    createApp({
      name: 'orders-esm',
      type: 'module',
      packages: ['@svc/sdk-node'],
      dependencies: express,
      // Types from the registry, as the app's own: the consumer must not see the repository's.
      devDependencies: {
        '@types/express': versionHere('@types/express'),
        '@types/node': versionHere('@types/node'),
      },
      files: {
        'server.js': ORDERS_ESM_SERVER,
        'typed/esm.ts': TYPED_ESM,
        'typed/cjs.cts': TYPED_CJS,
        'tsconfig.node16.json': TSCONFIG_NODE16,
        'tsconfig.bundler.json': TSCONFIG_BUNDLER,
      },
    }).then((app) => {
      typechecks = startTypechecks(app);
      return app;
    }),
    createApp({
      name: 'stock-cjs',
      type: 'commonjs',
      packages: ['@svc/sdk-node'],
      dependencies: express,
      files: { 'server.js': STOCK_CJS_SERVER },
    }),
  ]);
  const ready = /listening on (\S+)/;
  stock = await startAppProcess(stockApp.dir, ['server.js'], {
    readyLine: ready,
    env: { SVC_DSN: stack.dsn },
    what: 'the CommonJS stock app',
  });
  orders = await startAppProcess(ordersApp.dir, ['server.js'], {
    readyLine: ready,
    env: { SVC_DSN: stack.dsn, STOCK_URL: stock.ready },
    what: 'the ES module orders app',
  });
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await Promise.allSettled(Object.values(typechecks ?? {}));
  await orders?.stop();
  await stock?.stop();
  await stack?.close();
  await ordersApp?.remove();
  await stockApp?.remove();
});

describe('@svc/sdk-node installed from its tarball', () => {
  it('loads as the ES module build in an ESM app and as the CommonJS build in a CommonJS app, from the app', () => {
    expect(orders.output()).toContain(
      `sdk loaded from file://${join(ordersApp.dir, 'node_modules/@svc/sdk-node/dist/index.js')}\n`,
    );
    expect(stock.output()).toContain(
      `sdk loaded from ${join(stockApp.dir, 'node_modules/@svc/sdk-node/dist/index.cjs')}\n`,
    );
  });

  it('is loaded by plain `node` with import() and with require()', async () => {
    const both = await stockApp.run(process.execPath, [
      '-e',
      "import('@svc/sdk-node').then((esm) => console.log(typeof esm.createTracer, typeof require('@svc/sdk-node').createTracer))",
    ]);
    expect(both.stdout).toBe('function function\n');
  });

  it('sends the spans of a request crossing both apps as one trace, read back with trace.get', async () => {
    const caller = { traceId: newTraceId(), spanId: newSpanId(), sampled: true };
    const res = await fetch(`${orders.ready}/v1/orders/42`, {
      headers: { traceparent: formatTraceparent(caller) },
    });
    expect(await res.json()).toEqual({ id: '42', stock: { id: '42', count: 3 } });

    let trace: Trace | undefined;
    await eventually('the four spans of the request in trace.get', async () => {
      trace = await stack.tool<Trace>('trace.get', { trace_id: caller.traceId });
      return trace.span_count === 4;
    });
    // The caller's span is not stored: the orders app's server span points at it (an orphan).
    const [server] = trace!.spans;
    expect(server).toMatchObject({
      parent_span_id: caller.spanId,
      service: 'orders-esm',
      kind: 'server',
      operation: 'GET /v1/orders/:id',
      status: 'ok',
      attributes: { 'http.status_code': '200' },
    });
    const [client] = server!.children;
    expect(client).toMatchObject({ service: 'orders-esm', kind: 'client', status: 'ok' });
    expect(client!.operation).toMatch(/^GET 127\.0\.0\.1:\d+\/v1\/stock\/:id$/);
    const [stockServer] = client!.children;
    expect(stockServer).toMatchObject({
      service: 'stock-cjs',
      kind: 'server',
      operation: 'GET /v1/stock/:id',
    });
    expect(stockServer!.children).toEqual([
      expect.objectContaining({ service: 'stock-cjs', kind: 'client', operation: 'db.select stock' }),
    ]);
  });

  it("sends each app's log lines with the request's trace id (log.recent of the trace)", async () => {
    const caller = { traceId: newTraceId(), spanId: newSpanId(), sampled: true };
    await fetch(`${orders.ready}/v1/orders/7`, { headers: { traceparent: formatTraceparent(caller) } });
    let messages: string[] = [];
    await eventually('both log lines of the request in log.recent', async () => {
      const { items } = await stack.tool<{ items: { message: string; trace_id: string; source: string }[] }>(
        'log.recent',
        { trace_id: caller.traceId },
      );
      messages = items.map((i) => i.message).sort();
      return messages.length === 2;
    });
    expect(messages).toEqual(['order 7 read', 'stock 7 read']);
  });
});

describe('a TypeScript consumer of the installed package', () => {
  /** Files the check read from outside the app: only TypeScript's own lib.*.d.ts may be. */
  const outsideApp = (files: string[]) =>
    files.filter(
      (f) =>
        !f.startsWith(ordersApp.dir) && !(f.startsWith(REPOSITORY_ROOT) && /\/lib\.[^/]+\.d\.ts$/.test(f)),
    );

  it('type-checks with moduleResolution node16: the ESM file reads index.d.ts, the .cts index.d.cts', async () => {
    const files = await typechecks.node16;
    const sdk = join(ordersApp.dir, 'node_modules/@svc/sdk-node/dist');
    expect(files).toEqual(expect.arrayContaining([join(sdk, 'index.d.ts'), join(sdk, 'index.d.cts')]));
    expect(outsideApp(files)).toEqual([]);
  });

  it('type-checks with moduleResolution bundler', async () => {
    const files = await typechecks.bundler;
    expect(files).toContain(join(ordersApp.dir, 'node_modules/@svc/sdk-node/dist/index.d.ts'));
    expect(outsideApp(files)).toEqual([]);
  });
});
