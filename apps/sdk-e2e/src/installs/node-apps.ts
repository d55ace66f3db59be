// The Node apps of node.install.test.ts, as an app team writes them: plain JavaScript run with plain
// `node`, the SDK and express from the app's own node_modules. Each prints where the SDK loaded from
// (the ES module build or the CommonJS one) and its URL once it listens.

/** ESM (`"type": "module"`): an orders API calling the stock API with fetch. */
export const ORDERS_ESM_SERVER = `import express from 'express';
import { createTracer, expressTracing, instrumentFetch } from '@svc/sdk-node';

console.log('sdk loaded from ' + import.meta.resolve('@svc/sdk-node'));
const tracer = createTracer({
  service: 'orders-esm',
  exporter: { dsn: process.env.SVC_DSN, flushIntervalMs: 100 },
});
instrumentFetch(tracer);

const app = express();
app.use(expressTracing(tracer));
app.get('/v1/orders/:id', async (req, res) => {
  tracer.log('INFO', 'order ' + req.params.id + ' read');
  const stock = await fetch(process.env.STOCK_URL + '/v1/stock/' + req.params.id);
  res.json({ id: req.params.id, stock: await stock.json() });
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log('listening on http://127.0.0.1:' + server.address().port);
});
process.on('SIGTERM', async () => {
  server.close();
  await tracer.shutdown();
  process.exit(0);
});
`;

/** CommonJS (`"type": "commonjs"`): the stock API, with a database call of its own. */
export const STOCK_CJS_SERVER = `const express = require('express');
const { createTracer, expressTracing, instrumentHttp } = require('@svc/sdk-node');

console.log('sdk loaded from ' + require.resolve('@svc/sdk-node'));
const tracer = createTracer({
  service: 'stock-cjs',
  exporter: { dsn: process.env.SVC_DSN, flushIntervalMs: 100 },
});
instrumentHttp(tracer);

const app = express();
app.use(expressTracing(tracer));
app.get('/v1/stock/:id', (req, res) => {
  const count = tracer.inSpan('db.select stock', () => 3, { kind: 'client' });
  tracer.log('INFO', 'stock ' + req.params.id + ' read');
  res.json({ id: req.params.id, count });
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log('listening on http://127.0.0.1:' + server.address().port);
});
process.on('SIGTERM', async () => {
  server.close();
  await tracer.shutdown();
  process.exit(0);
});
`;

/**
 * A TypeScript service's use of the SDK, type-checked as an ES module (`.ts` in a `"type": "module"`
 * app) and as CommonJS (`.cts`). The @ts-expect-error lines hold only while the SDK's types are
 * real: were they missing or `any`, the unused directive would fail the check.
 */
export const TYPED_ESM = `import type { IncomingMessage } from 'node:http';
import express from 'express';
import { createTracer, expressTracing, type Tracer, traceFields } from '@svc/sdk-node';

const tracer: Tracer = createTracer({
  service: 'typed',
  sampleRate: 0.5,
  exporter: { dsn: 'http://key:secret@localhost:8080/project', flushIntervalMs: 100 },
});
const app = express();
app.use(expressTracing(tracer, { ignore: (req: IncomingMessage) => req.url === '/healthz' }));
const fields: { trace_id?: string; span_id?: string } = traceFields();
const answer: number = tracer.inSpan('work', (span) => {
  span.setAttribute('items', 3);
  return 42;
});
// @ts-expect-error the sample rate is a number
createTracer({ service: 'typed', sampleRate: 'all', exporter: { dsn: '' } });
export { answer, app, fields };
`;

export const TYPED_CJS = `import { createTracer, type ExporterStats, traceRequests } from '@svc/sdk-node';
import { createServer } from 'node:http';

const tracer = createTracer({ service: 'typed-cjs', exporter: { dsn: 'http://key:secret@localhost:8080/project' } });
const server = createServer(traceRequests(tracer, (_req, res) => res.end('ok')));
const stats: ExporterStats = tracer.exporter.stats();
// @ts-expect-error the service is a string
createTracer({ service: 1, exporter: { dsn: '' } });
export { server, stats };
`;

const compilerOptions = {
  strict: true,
  noEmit: true,
  target: 'es2022',
  lib: ['es2022'],
  types: ['node'],
};

/**
 * `moduleResolution: node16`: the ESM file resolves the `import` condition, the .cts `require`. The
 * SDK's declaration files are checked too, not only their use (with @types/node and express's, which
 * is most of the check's time: once is enough).
 */
export const TSCONFIG_NODE16 = JSON.stringify({
  compilerOptions: { ...compilerOptions, skipLibCheck: false, module: 'node16', moduleResolution: 'node16' },
  files: ['typed/esm.ts', 'typed/cjs.cts'],
});

/** `moduleResolution: bundler`, as a bundled app (Vite, esbuild, webpack) type-checks. */
export const TSCONFIG_BUNDLER = JSON.stringify({
  compilerOptions: {
    ...compilerOptions,
    module: 'esnext',
    moduleResolution: 'bundler',
    esModuleInterop: true,
  },
  files: ['typed/esm.ts'],
});
