import { gzipSync } from 'node:zlib';
import { signIngestBody } from '@svc/ingest-auth';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { httpErrorHandler } from '@svc/tool-server/http-errors';
import express from 'express';
import request from 'supertest';
import { MAX_RECORDS_PER_REQUEST } from '../ingest/request-limits';
import { createBatchWriter } from '../ingest/store/write-batch';
import { type IngestSlicing, WorkSlices } from '../ingest/work-slices';
import { type CoreHarness, createCoreHarness, staticIngestKeys, type TestKey } from '../testing/core-harness';
import { createIngestRouter } from './ingest-router';

// What the ingest routes make of a request's body before any record is looked at: the signature
// covers the bytes as sent (gzip too), strings that are not well-formed UTF-16 are stored with
// U+FFFD (before, the engine refused the batch with a 503), a request carries at most
// MAX_RECORDS_PER_REQUEST records, and the work pauses between slices.

const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const key: TestKey = {
  keyId: 'key_body',
  projectId: 'proj_body',
  secret: 'secret-body-0123456',
  active: true,
};

let h: CoreHarness;
beforeAll(async () => {
  h = await createCoreHarness('core_ingest_body', NOW, [key]);
});
afterAll(async () => {
  await h.close();
});

const ts = Math.floor(NOW / 1000);
function signedPost(
  path: string,
  sent: Buffer,
  signedBytes: Buffer | string,
  headers: Record<string, string> = {},
) {
  return request(h.app)
    .post(path)
    .set({
      // Not application/json: supertest would send the Buffer's JSON. The type is not checked.
      'content-type': 'application/octet-stream',
      'x-svc-key': key.keyId,
      'x-svc-timestamp': String(ts),
      'x-svc-signature': signIngestBody(key.secret, ts, signedBytes),
      ...headers,
    })
    .send(sent);
}

const log = (message: string) => ({ timestamp: NOW - 1000, level: 'INFO', message, source: 'backend' });

describe('lone surrogates', () => {
  it('a batch containing "x\\ud800" is stored, and reads back "x\\ufffd", in every kind of field', async () => {
    const body = JSON.stringify({
      logs: [{ ...log('x\ud800'), attributes: { 'k\udc00': 'v\ud800' } }],
      events: [
        { timestamp: NOW - 1000, event_name: 'e\ud800', user_id: 'u', properties: { 'p\ud800': ['\udfff'] } },
      ],
      crashes: [
        {
          event_id: 'evt_surrogate',
          timestamp: NOW - 1000,
          error_type: 'E\ud800',
          message: '',
          frames: [{ function: 'f\ud800', file: 'a.js' }],
          breadcrumbs: [],
          platform: 'web',
          app_version: '1.0',
          device_os: 'x',
        },
      ],
    });
    // JSON.stringify writes the lone surrogate as the escape \ud800: what a client sends.
    expect(body).toContain('\\ud800');
    const res = await h.ingest(key, body);
    expect(res.status).toBe(200);
    const [stored] = await h.ch.query<{ message: string; attributes: Record<string, string> }>(
      'SELECT message, attributes FROM logs WHERE project_id = {p:String}',
      { p: key.projectId },
    );
    expect(stored).toEqual({ message: 'x\ufffd', attributes: { 'k\ufffd': 'v\ufffd' } });
    const [event] = await h.ch.query<{ event_name: string; properties: string }>(
      'SELECT event_name, properties FROM events WHERE project_id = {p:String}',
      { p: key.projectId },
    );
    expect(event).toEqual({ event_name: 'e\ufffd', properties: JSON.stringify({ 'p\ufffd': ['\ufffd'] }) });
    const [crash] = await h.ch.query<{ error_type: string; frames: string }>(
      'SELECT error_type, frames FROM crashes WHERE project_id = {p:String}',
      { p: key.projectId },
    );
    expect(crash?.error_type).toBe('E\ufffd');
    expect(JSON.parse(crash!.frames)[0].function).toBe('f\ufffd');
    // A debug file's name (percent-encoded CESU-8 of a lone surrogate) and a source map's `file`.
    const map = Buffer.from('{"version":3,"file":"app\\ud800.js","sources":[],"names":[],"mappings":""}');
    const upload = await signedPost(
      '/ingest/v1/debug-files?kind=sourcemap&platform=web&name=m%ED%A0%80.map',
      map,
      map,
    );
    expect(upload.status).toBe(201);
    const [file] = await h.ch.query<{ name: string; module: string }>(
      'SELECT name, module FROM debug_files WHERE project_id = {p:String}',
      { p: key.projectId },
    );
    expect(file!.module).toBe('app\ufffd.js');
    expect(file!.name.startsWith('m\ufffd')).toBe(true);
    expect(file!.name.endsWith('.map')).toBe(true);
    // And the tools answer it as stored.
    const tool = await h.callTool(key.projectId, 'log.recent', {});
    expect(tool.status).toBe(200);
    expect(tool.body.items[0].message).toBe('x\ufffd');
  });
});

describe('gzip bodies', () => {
  const body = JSON.stringify({ logs: [log('gzipped')] });
  const gzipped = gzipSync(body);

  it('verify when signed over the bytes as sent (the gzip), not over the inflated body', async () => {
    const asSent = await signedPost('/ingest/v1/batch', gzipped, gzipped, { 'content-encoding': 'gzip' });
    expect(asSent.status).toBe(200);
    expect(asSent.body.accepted.logs).toBe(1);
    const overInflated = await signedPost('/ingest/v1/batch', gzipped, body, { 'content-encoding': 'gzip' });
    expect(overInflated.status).toBe(401);
  });

  it('debug files too: signed as sent, stored inflated', async () => {
    const map = JSON.stringify({ version: 3, file: 'app.min.js', sources: [], names: [], mappings: '' });
    const zipped = gzipSync(map);
    const path = '/ingest/v1/debug-files?kind=sourcemap&platform=web&name=app.min.js.map';
    const res = await signedPost(path, zipped, zipped, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(201);
    expect(res.body.size_bytes).toBe(Buffer.byteLength(map));
    expect((await signedPost(path, zipped, map, { 'content-encoding': 'gzip' })).status).toBe(401);
  });

  it('refuses a body that inflates past the limit with 413, and one that is not gzip with 400', async () => {
    const bomb = gzipSync(Buffer.alloc(11 * 1024 * 1024, 0x20));
    const res = await signedPost('/ingest/v1/batch', bomb, bomb, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    const notGzip = Buffer.from(body);
    const bad = await signedPost('/ingest/v1/batch', notGzip, notGzip, { 'content-encoding': 'gzip' });
    expect(bad.status).toBe(400);
    const unknown = await signedPost('/ingest/v1/batch', notGzip, notGzip, { 'content-encoding': 'zip' });
    expect(unknown.status).toBe(400);
  });
});

describe('records per request', () => {
  it(`answers 413 to a batch of more than ${MAX_RECORDS_PER_REQUEST} records, writing nothing`, async () => {
    const logs = Array.from({ length: MAX_RECORDS_PER_REQUEST + 1 }, (_, i) => log(`many ${i}`));
    const res = await h.ingest(key, { logs });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
    expect(res.body.message).toContain(`at most ${MAX_RECORDS_PER_REQUEST}`);
    const [row] = await h.ch.query<{ n: string }>(
      "SELECT count() AS n FROM logs WHERE project_id = {p:String} AND startsWith(message, 'many')",
      { p: key.projectId },
    );
    expect(Number(row?.n)).toBe(0);
  });
});

describe('work in slices', () => {
  it('a request of 20,000 records pauses after every slice of records and of JSON values', async () => {
    const made: IngestSlicing[] = [];
    const slicing = () => {
      const s = {
        protobufBytes: new WorkSlices(64 * 1024),
        jsonChars: new WorkSlices(64 * 1024),
        jsonValues: new WorkSlices(10_000),
        records: new WorkSlices(500),
      };
      made.push(s);
      return s;
    };
    const app = express();
    app.use(
      createIngestRouter({
        ch: h.ch,
        ingestKeys: staticIngestKeys(new Map([[key.keyId, key]])),
        logger: silentLogger,
        metrics: createNoopMetrics(),
        now: () => NOW,
        write: createBatchWriter({
          ch: h.ch,
          logger: silentLogger,
          metrics: createNoopMetrics(),
          now: () => NOW,
        }),
        slicing,
      }),
    );
    app.use(httpErrorHandler(silentLogger));
    const count = MAX_RECORDS_PER_REQUEST;
    const logs = Array.from({ length: count }, (_, i) => log(`sliced ${i}`));
    const raw = JSON.stringify({ logs });
    const res = await request(app)
      .post('/ingest/v1/batch')
      .set({
        'content-type': 'application/json',
        'x-svc-key': key.keyId,
        'x-svc-timestamp': String(ts),
        'x-svc-signature': signIngestBody(key.secret, ts, raw),
      })
      .send(raw);
    expect(res.status).toBe(200);
    const [s] = made;
    // Each record is an object of four values: 5 JSON values a record, 10,000 a slice.
    expect(s!.jsonValues.pauses).toBeGreaterThanOrEqual(Math.floor((count * 5) / 10_000) - 1);
    expect(s!.jsonValues.largestSlice).toBeLessThanOrEqual(10_000);
    expect(s!.jsonChars.pauses).toBeGreaterThanOrEqual(Math.floor(raw.length / (64 * 1024)));
    // A record is a leaf, parsed whole: a slice ends with the one that fills it.
    const longestRecord = Math.max(...logs.map((l) => JSON.stringify(l).length));
    expect(s!.jsonChars.largestSlice).toBeLessThanOrEqual(64 * 1024 + longestRecord);
    expect(s!.records.pauses).toBe(count / 500);
    expect(s!.records.largestSlice).toBe(500);
  });
});
