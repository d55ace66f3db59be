import { createDecipheriv, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { nodeFetch, nodePlatform } from './node/node-platform';
import type { HttpFetch } from './platform';
import { createMobileSdk, type MobileSdk, type SdkError } from './sdk';
import { killable } from './testing/killable';
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
/** Recall requests, each for a device or for a user, as the console makes them; answered by an upload. */
let requests: { request_id: string; device_id?: string; user_id?: string; answered?: boolean }[] = [];

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
      const query = new URLSearchParams(target.split('?')[1] ?? '');
      // A request is this device's, or its user's when the query names the user it asks for.
      const asksFor = (r: (typeof requests)[number]) =>
        (r.device_id !== undefined && r.device_id === query.get('device_id')) ||
        (r.user_id !== undefined && r.user_id === query.get('user_id'));
      if (target.startsWith('/device/v1/recalls?')) {
        return json(200, {
          items: requests
            .filter((r) => !r.answered && asksFor(r))
            .map(({ request_id }) => ({
              request_id,
              requested_at: new Date().toISOString(),
            })),
        });
      }
      if (target.startsWith('/device/v1/files?')) {
        const requestId = query.get('request_id');
        const request = requests.find((r) => r.request_id === requestId);
        if (requestId && !(request && asksFor(request)))
          return json(400, { error: 'invalid_input', details: { parameter: 'request_id' } });
        const decipher = createDecipheriv('aes-256-gcm', DATA_KEY, body.subarray(0, 12));
        decipher.setAuthTag(body.subarray(body.length - 16));
        const plain = Buffer.concat([decipher.update(body.subarray(12, body.length - 16)), decipher.final()]);
        uploads.push({ target, text: gunzipSync(plain).toString('utf8') });
        if (request) request.answered = true;
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
    requests = [{ request_id: 'rq_1', device_id: deviceId }];
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

  it('an upload killed midway goes again at the next start under the user stored in its job, though no user is signed in yet', async () => {
    const deviceId = 'dev-kill-1';
    // The console asked for the user's logs, not the device's.
    requests = [{ request_id: 'rq_user', user_id: 'u1' }];
    const options = {
      dsn: sink.dsn,
      recallEndpoint: recallUrl,
      deviceId,
      appVersion: '1.0.0',
      sampleIntervalMs: 0,
      appStart: 'manual' as const,
    };
    // Launch 1: signed in; the upload starts and never ends: the app is killed midway.
    let uploadStarted!: () => void;
    const started = new Promise<void>((resolve) => (uploadStarted = resolve));
    const plain = nodeFetch();
    const stalling: HttpFetch = (url, init) => {
      if (!url.includes('/device/v1/files')) return plain(url, init);
      uploadStarted();
      return new Promise((_resolve, reject) =>
        init.signal.addEventListener('abort', () => reject(new Error('killed')), { once: true }),
      );
    };
    const first = killable(nodePlatform({ dir, fetch: stalling }));
    const killed = createMobileSdk(options, first.platform);
    killed.setUser('u1');
    killed.log('INFO', 'before the kill');
    await started;
    first.kill();
    void killed.shutdown();
    expect(uploads).toEqual([]);

    // Launch 2: the app starts again; the user has not signed in (yet).
    const errors: SdkError[] = [];
    sdk = createMobileSdk({ ...options, onError: (e) => void errors.push(e) }, nodePlatform({ dir }));
    await sdk.flush();
    expect(errors).toEqual([]);
    expect(sdk.stats()).toMatchObject({ uploadsDone: 1, uploadsPending: 0, uploadsDropped: 0 });
    expect(uploads).toHaveLength(1);
    const query = new URLSearchParams(uploads[0]!.target.split('?')[1]);
    expect([query.get('request_id'), query.get('user_id'), query.get('device_id')]).toEqual([
      'rq_user',
      'u1',
      deviceId,
    ]);
    expect(uploads[0]!.text).toContain('before the kill');
    expect(requests[0]!.answered).toBe(true);
  });
});
