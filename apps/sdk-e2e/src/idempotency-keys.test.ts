import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoopbackCore, startLoopbackCore } from '@svc/observability-core/testing';
import type { Exporter } from '@svc/sdk-core';
import { createExporter as createNodeExporter } from '@svc/sdk-node';
import { createMobileSdk, nodePlatform } from '@svc/sdk-react-native/node';
import { createExporter as createWebExporter } from '@svc/sdk-web';

// Every SDK's exporter sends one Idempotency-Key per batch and keeps it on the batch's retries:
// a proxy in front of a real core lets the core store the first try and then cuts the connection
// (the answer is lost); the retry carries the same key, the core answers it as a repeat, and the
// spans are stored once and counted sent. The Web SDK's exporter runs here in Node (fetch with
// keepalive, Web Crypto signing, the key named in the URL): the same code a page runs.

const PROJECT = 'prj_sdk_keys';
const KEY = { keyId: 'key_sdk_keys', secret: 'sdk-keys-test-ingest-secret-01234' };

interface Seen {
  key: string | undefined;
  /** The core's answer, or 'lost' when the proxy cut the connection after the core answered. */
  status: number | 'lost';
  replayed: boolean;
}

let core: LoopbackCore;
let proxy: Server;
let proxyUrl: string;
let seen: Seen[] = [];
let answersToLose = 0;

beforeAll(async () => {
  core = await startLoopbackCore({
    name: 'sdk_idempotency_keys',
    key: { ...KEY, projectId: PROJECT },
    internalSecret: 'sdk-keys-test-internal-secret-0123',
  });
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const up = request(`${core.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          const text = Buffer.concat(body).toString('utf8');
          const entry: Seen = {
            key: req.headers['idempotency-key'] as string | undefined,
            status: answer.statusCode ?? 0,
            replayed: text.includes('"replayed":true'),
          };
          seen.push(entry);
          // The core has answered (the batch is stored): the answer never reaches the SDK.
          if (req.url?.startsWith('/ingest/v1/batch') && entry.status === 200 && answersToLose > 0) {
            answersToLose--;
            entry.status = 'lost';
            return void res.socket?.destroy();
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
        });
      });
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await core?.close();
});

beforeEach(() => {
  seen = [];
  answersToLose = 1;
});

const proxyDsn = () => `http://${KEY.keyId}:${KEY.secret}@${new URL(proxyUrl).host}/${PROJECT}`;
const exporterOptions = () => ({ dsn: proxyDsn(), flushIntervalMs: 3_600_000, retryBaseMs: 50 });

const span = (service: string, i: number) => ({
  trace_id: `${service.length.toString(16)}`.padStart(32, 'a'),
  span_id: (i + 1).toString(16).padStart(16, '0'),
  kind: 'internal' as const,
  status: 'ok' as const,
  operation: `step ${i}`,
  service,
  start_time: Date.now(),
  duration_ms: 1,
});

async function storedSpans(service: string): Promise<string[]> {
  const rows = await core.ch.query<{ span_id: string }>(
    `SELECT span_id FROM spans WHERE project_id = '${PROJECT}' AND service = '${service}' ORDER BY span_id`,
  );
  return rows.map((r) => r.span_id);
}

/** The batch went twice under one key: first stored with its answer lost, then answered as a repeat. */
function expectOneKeyAcrossRetries() {
  const batches = seen.filter((s) => s.key !== undefined);
  expect(batches.map((s) => [s.status, s.replayed])).toEqual([
    ['lost', false],
    [200, true],
  ]);
  expect(batches[0]!.key).toMatch(/^[\x21-\x7e]{1,255}$/);
  expect(batches[1]!.key).toBe(batches[0]!.key);
}

async function sendThree(exporter: Exporter, service: string) {
  for (let i = 0; i < 3; i++) exporter.addSpan(span(service, i));
  await exporter.flush();
}

it('Node: the retry of a batch whose answer was lost carries its key; the core stores it once', async () => {
  const exporter = createNodeExporter(exporterOptions());
  await sendThree(exporter, 'keys-node');
  expectOneKeyAcrossRetries();
  expect(exporter.stats()).toEqual({ sent: 3, dropped: 0, queued: 0 });
  expect(await storedSpans('keys-node')).toHaveLength(3);
  await exporter.shutdown();
});

it('Web: the retry of a batch whose answer was lost carries its key; the core stores it once', async () => {
  const exporter = createWebExporter(exporterOptions());
  await sendThree(exporter, 'keys-web');
  expectOneKeyAcrossRetries();
  expect(exporter.stats()).toEqual({ sent: 3, dropped: 0, queued: 0 });
  expect(await storedSpans('keys-web')).toHaveLength(3);
  await exporter.shutdown();
});

it('React Native: the retry of a batch whose answer was lost carries its key; the core stores it once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sdk-keys-'));
  try {
    const sdk = createMobileSdk(
      {
        dsn: proxyDsn(),
        appVersion: '1.0.0',
        service: 'keys-rn',
        appStart: 'manual',
        sampleIntervalMs: 0,
        exporter: { flushIntervalMs: 3_600_000, retryBaseMs: 50 },
      },
      nodePlatform({ dir }),
    );
    // The session's report goes first, from the SDK's storage; only the exporter's batch loses its answer.
    answersToLose = 0;
    await sdk.flush();
    seen = [];
    answersToLose = 1;
    for (let i = 0; i < 3; i++) sdk.tracer.startSpan(`step ${i}`).end();
    await sdk.flush();
    expectOneKeyAcrossRetries();
    expect(sdk.stats().exporter).toEqual({ sent: 3, dropped: 0, queued: 0 });
    expect(await storedSpans('keys-rn')).toHaveLength(3);
    await sdk.shutdown();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
