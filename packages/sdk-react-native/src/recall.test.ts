import { createDecipheriv, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { nodePlatform } from './node/node-platform';
import { createMobileSdk, type MobileSdk } from './sdk';
import { SINK_KEY, type Sink, startSink } from './testing/sink';

// The SDK's recall requests against a loopback stand-in of recall's device side that checks every
// signature as recall does (docs/recall.md, "Device side"): the whole request signed (v2: method,
// path and query as received, timestamp, nonce, body), each nonce used once.

interface Seen {
  method: string;
  target: string;
  nonce: string;
  valid: boolean;
}

const DATA_KEY = Buffer.alloc(32, 7);
let sink: Sink;
let recall: Server;
let recallUrl: string;
let dir: string;
const seen: Seen[] = [];
const uploads: { target: string; text: string }[] = [];
let pendingRequests: string[] = [];

const expectedSignature = (ts: string, nonce: string, method: string, target: string, body: Buffer) =>
  `v2=${createHmac('sha256', SINK_KEY.secret)
    .update(`v2\n${ts}\n${nonce}\n${method}\n${target}\n`)
    .update(body)
    .digest('hex')}`;

beforeAll(async () => {
  sink = await startSink();
  recall = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = req.url ?? '';
      const nonce = String(req.headers['x-svc-nonce']);
      const valid =
        req.headers['x-svc-key'] === SINK_KEY.id &&
        req.headers['x-svc-signature'] ===
          expectedSignature(String(req.headers['x-svc-timestamp']), nonce, req.method ?? '', target, body) &&
        !seen.some((s) => s.nonce === nonce);
      seen.push({ method: req.method ?? '', target, nonce, valid });
      const json = (status: number, answer: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (!valid) return json(401, { error: 'unauthorized' });
      if (target === '/device/v1/key') return json(200, { key_version: 1, key: DATA_KEY.toString('base64') });
      if (target.startsWith('/device/v1/recalls?')) {
        return json(200, {
          items: pendingRequests.map((request_id) => ({
            request_id,
            requested_at: new Date().toISOString(),
          })),
        });
      }
      if (target.startsWith('/device/v1/files?')) {
        const decipher = createDecipheriv('aes-256-gcm', DATA_KEY, body.subarray(0, 12));
        decipher.setAuthTag(body.subarray(body.length - 16));
        const plain = Buffer.concat([decipher.update(body.subarray(12, body.length - 16)), decipher.final()]);
        uploads.push({ target, text: gunzipSync(plain).toString('utf8') });
        pendingRequests = [];
        return json(201, { file_id: `rf_${uploads.length}` });
      }
      json(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => recall.listen(0, '127.0.0.1', resolve));
  recallUrl = `http://127.0.0.1:${(recall.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sink.close();
  await new Promise((r) => recall.close(r));
});

let sdk: MobileSdk | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sdk-recall-'));
  seen.length = 0;
  uploads.length = 0;
});
afterEach(async () => {
  await sdk?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('recall requests of the SDK', () => {
  it('signs each request whole with a nonce of its own: polls, the key, uploads with any file name', async () => {
    // Characters a URL parser would encode differently from encodeURIComponent are in the ids.
    const deviceId = "dev (1)'s*!~ é";
    const userId = 'user+1@example.com';
    pendingRequests = ['rq_1'];
    sdk = createMobileSdk(
      {
        dsn: sink.dsn,
        recallEndpoint: recallUrl,
        deviceId,
        userId,
        appVersion: '1.0.0',
        sampleIntervalMs: 0,
        appStart: 'manual',
      },
      nodePlatform({ dir }),
    );
    sdk.log('INFO', 'hello recall', { n: 1 });
    await sdk.checkRecalls();
    await sdk.flush();

    expect(seen.filter((s) => !s.valid)).toEqual([]);
    expect(new Set(seen.map((s) => s.nonce)).size).toBe(seen.length);
    expect(seen.map((s) => `${s.method} ${s.target.split('?')[0]}`)).toEqual(
      expect.arrayContaining(['GET /device/v1/recalls', 'GET /device/v1/key', 'POST /device/v1/files']),
    );
    // The signed query names this device and user, strictly encoded.
    const poll = new URLSearchParams(
      seen.find((s) => s.target.startsWith('/device/v1/recalls?'))!.target.split('?')[1],
    );
    expect([poll.get('device_id'), poll.get('user_id')]).toEqual([deviceId, userId]);
    expect(seen.every((s) => !/[!'()*]/.test(s.target))).toBe(true);
    // One upload: the poll at start and checkRecalls() ran one after the other, not both at once.
    expect(uploads).toHaveLength(1);
    const query = new URLSearchParams(uploads[0]!.target.split('?')[1]);
    expect([query.get('device_id'), query.get('request_id'), query.get('user_id')]).toEqual([
      deviceId,
      'rq_1',
      userId,
    ]);
    expect(uploads[0]!.text).toContain('hello recall');
    expect(sdk.stats()).toMatchObject({ uploadsPending: 0, uploadsDropped: 0 });
  });
});
