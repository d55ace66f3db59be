import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { signIngestBody } from '@svc/ingest-auth';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import {
  crashSymbolicateOutput,
  type DebugFile,
  type SymbolicatedFrame,
  symbolListOutput,
} from '@svc/tools-crash';
import type { Express } from 'express';
import request from 'supertest';
import { createCoreApp } from '../app';
import { createCoreTestDatabase } from '../testing/core-database';
import { INTERNAL_SECRET, staticIngestKeys, type TestIngestKey } from '../testing/core-harness';
import {
  type BreakpadFunc,
  type Bundle,
  type BundleFunction,
  breakpadText,
  buildBundle,
  expectedOriginal,
} from '../testing/symbolication-fixtures';
import { createDebugFileStore, type DebugFileStore } from './debug-file-store';
import { pendingJobs } from './jobs';
import { REASONS, type StoredFrame } from './symbolicate';
import { createSymbolicator, type Symbolicator } from './symbolicator';
import { type SymbolicationWorker, startSymbolicationWorker } from './worker';

// Upload -> ingest -> crash.symbolicate -> worker -> crash_symbolications, over HTTP on chDB.
// Expected frames and signatures are computed here from the fixtures' mapping tables and records.

const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const KEY = { keyId: 'key_sym', projectId: 'proj_sym', secret: 'secret-sym-0123456789' };
const OTHER = { keyId: 'key_other', projectId: 'proj_other', secret: 'secret-other-0123456789' };

const chain = (names: string[]): BundleFunction[] =>
  ['onCheckout', 'submitOrder', 'validateCart', 'checkStock'].map((original, i) => ({
    minified: names[i]!,
    original,
    source: 'src/checkout.ts',
    line: 10 + i * 10,
  }));
// The same code built twice: other minified names, other columns.
const R1 = buildBundle('app.min.js', chain(['n', 'o', 'p', 'q']));
const R2 = buildBundle('main.8f3a.js', chain(['Qe', 'Rf', 'Sg', 'Th']), 'var pad=1;');

const breakpadFuncs: BreakpadFunc[] = [
  {
    address: 0x1000,
    size: 0x80,
    name: 'Physics::step(float)',
    lines: [
      [0x1000, 0x40, 10, 0],
      [0x1040, 0x40, 12, 0],
    ],
  },
  { address: 0x2000, size: 0x40, name: 'Renderer::draw()', lines: [[0x2000, 0x40, 42, 1]] },
];
const BREAKPAD = breakpadText('libgame.so', ['/src/physics.cpp', '/src/render.cpp'], breakpadFuncs);

function sha16(parts: string[]): string {
  return createHash('sha256').update(parts.join('\n'), 'utf8').digest('hex').slice(0, 16);
}
/** The signature rule, restated: error_type + the top three in-app function names. */
function expectedSignature(errorType: string, frames: { function: string; in_app?: boolean | null }[]) {
  const inApp = frames.filter((f) => f.in_app === true);
  return sha16([errorType, ...(inApp.length > 0 ? inApp : frames).slice(0, 3).map((f) => f.function)]);
}

function webFrames(bundle: Bundle, url: string): StoredFrame[] {
  return [
    ...bundle.stack.map(([fn, column]) => ({ function: fn, file: url, line: 1, column, in_app: true })),
    { function: 'dispatch', file: 'https://cdn.other.example/vendor.js', line: 3, column: 7, in_app: false },
  ];
}

/** What the worker must produce for webFrames(bundle): from the fixture's mapping table. */
function expectedWebFrames(bundle: Bundle, url: string): SymbolicatedFrame[] {
  const raw = webFrames(bundle, url);
  return raw.map((f, i) => {
    const base = {
      function: f.function,
      file: f.file,
      line: f.line ?? null,
      column: f.column ?? null,
      in_app: f.in_app === true,
      address: null,
      module: null,
      debug_id: null,
    };
    if (i >= bundle.stack.length) return { ...base, symbolicated: false, reason: REASONS.noMapForFile };
    const m = expectedOriginal(bundle, f.column!)!;
    const caller = i + 1 < bundle.stack.length ? expectedOriginal(bundle, raw[i + 1]!.column!) : null;
    return {
      ...base,
      function: caller?.name ?? f.function,
      file: m.source,
      line: m.line,
      column: m.column + 1,
      symbolicated: true,
      reason: null,
    };
  });
}

const crash = (eventId: string, platform: string, appVersion: string, frames: StoredFrame[], extra = {}) => ({
  event_id: eventId,
  timestamp: new Date(NOW - 60_000).toISOString(),
  error_type: 'TypeError',
  message: 'boom',
  frames,
  breadcrumbs: [],
  platform,
  app_version: appVersion,
  device_os: `${platform} 1`,
  ...extra,
});

const androidFrames: StoredFrame[] = [
  {
    function: '??',
    file: '',
    address: '0x1044',
    module: '/data/app/com.game/lib/arm64/libgame.so',
    in_app: true,
  },
  { function: '??', file: '', address: '2010', module: 'libgame.so', in_app: true },
  { function: '??', file: '', address: '0x9000', module: 'libgame.so', in_app: true },
  { function: '??', file: '', address: 'zz', module: 'libgame.so', in_app: true },
  { function: '??', file: '', in_app: true },
  { function: 'memcpy', file: '', address: '0x10', module: 'libc.so', in_app: false },
];

describe('symbolication end to end', () => {
  let ch: ClickHouse;
  let app: Express;
  let dir: string;
  let files: DebugFileStore;
  let symbolicator: Symbolicator;
  let worker: SymbolicationWorker | undefined;
  let clock = NOW;

  const upload = (
    query: Record<string, string>,
    body: string | Buffer,
    key: { keyId: string; secret: string } = KEY,
  ) => {
    clock += 1000;
    const ts = Math.floor(clock / 1000);
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
    return request(app)
      .post('/ingest/v1/debug-files')
      .query(query)
      .set('Content-Type', 'application/octet-stream')
      .set('X-Svc-Key', key.keyId)
      .set('X-Svc-Timestamp', String(ts))
      .set('X-Svc-Signature', signIngestBody(key.secret, ts, bytes))
      .send(bytes);
  };
  const ingest = (body: unknown) => {
    const raw = JSON.stringify(body);
    const ts = Math.floor(clock / 1000);
    return request(app)
      .post('/ingest/v1/batch')
      .set('Content-Type', 'application/json')
      .set('X-Svc-Key', KEY.keyId)
      .set('X-Svc-Timestamp', String(ts))
      .set('X-Svc-Signature', signIngestBody(KEY.secret, ts, raw))
      .send(raw);
  };
  const callTool = (tool: string, input: unknown, projectId = KEY.projectId) =>
    request(app)
      .post(`/internal/v1/projects/${projectId}/tools/${tool}`)
      .set('X-Internal-Secret', INTERNAL_SECRET)
      .send(input as object);
  const stored = async (eventId: string, projectId = KEY.projectId) => {
    const rows = await ch.query<{ frames: string; symbolicated: number }>(
      'SELECT frames, symbolicated FROM crash_symbolications FINAL WHERE project_id = {p:String} AND event_id = {e:String}',
      { p: projectId, e: eventId },
    );
    return rows.map((r) => ({
      frames: JSON.parse(r.frames) as SymbolicatedFrame[],
      symbolicated: Number(r.symbolicated),
    }));
  };
  const signatureOf = async (eventId: string) =>
    (
      await ch.query<{ signature: string }>('SELECT signature FROM crashes WHERE event_id = {e:String}', {
        e: eventId,
      })
    )[0]?.signature;
  /** Bounded wait until `requests` crash.symbolicate requests of the crash are handled. */
  const handled = async (eventId: string, requests: number) => {
    for (let i = 0; i < 1500; i += 1) {
      const [row] = await ch.query<{ n: string }>(
        `SELECT uniqExactIf(request_id, done = 1) AS n FROM symbolication_jobs
         WHERE project_id = {p:String} AND event_id = {e:String}`,
        { p: KEY.projectId, e: eventId },
      );
      if (Number(row?.n) >= requests) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`symbolication of ${eventId} was not handled`);
  };

  beforeAll(async () => {
    ch = await createCoreTestDatabase('symbolication');
    dir = mkdtempSync(join(tmpdir(), 'symbolication-test-'));
    files = createDebugFileStore(dir);
    symbolicator = createSymbolicator({ ch, files, logger: silentLogger });
    const keys = new Map<string, TestIngestKey>([
      [KEY.keyId, { projectId: KEY.projectId, secret: KEY.secret, active: true }],
      [OTHER.keyId, { projectId: OTHER.projectId, secret: OTHER.secret, active: true }],
    ]);
    app = createCoreApp({
      ch,
      ingestKeys: staticIngestKeys(keys),
      internalSecret: INTERNAL_SECRET,
      logger: silentLogger,
      metrics: createNoopMetrics(),
      now: () => clock,
      debugFiles: files,
      symbolicator,
      maxDebugFileBytes: 64 * 1024,
    });
  });

  afterAll(async () => {
    await worker?.stop();
    symbolicator.close();
    await dropTestClickHouse(ch);
    rmSync(dir, { recursive: true, force: true });
  });

  const R1_URL = 'https://shop.example/static/app.min.js?v=1#x';
  const R2_URL = 'https://shop.example/static/main.8f3a.js';

  it('a crash ingested before any symbol file keeps the signature of its frames as sent', async () => {
    const frames = webFrames(R1, R1_URL);
    const res = await ingest({ crashes: [crash('web_before', 'web', '1.0.0', frames)] });
    expect(res.status).toBe(200);
    expect(await signatureOf('web_before')).toBe(expectedSignature('TypeError', frames));
    expect(await stored('web_before')).toEqual([]);
  });

  it('accepts signed uploads of every kind and describes them', async () => {
    const map = await upload(
      { kind: 'sourcemap', platform: 'web', name: 'app.min.js.map', release: '1.0.0' },
      R1.map,
    );
    expect(map.status).toBe(201);
    expect(map.body).toMatchObject({
      kind: 'sourcemap',
      platform: 'web',
      name: 'app.min.js.map',
      release: '1.0.0',
      module: 'app.min.js',
      size_bytes: Buffer.byteLength(R1.map),
      sha256: createHash('sha256').update(R1.map).digest('hex'),
    });
    // Matched by the map's `file`, whatever the upload is called.
    expect(
      (await upload({ kind: 'sourcemap', platform: 'web', name: 'r2.map', release: '1.1.0' }, R2.map)).status,
    ).toBe(201);
    const bp = await upload({ kind: 'breakpad', platform: 'android', name: 'libgame.so.sym' }, BREAKPAD);
    expect(bp.status).toBe(201);
    expect(bp.body).toMatchObject({
      module: 'libgame.so',
      debug_id: 'ABCDEF0123456789ABCDEF01234567890',
      release: null,
    });
    const dsym = await upload(
      { kind: 'dsym', platform: 'ios', name: 'Shop.app.dSYM.zip', release: '3.0', debug_id: 'abcd-12' },
      Buffer.from([0, 1, 2, 3, 255]),
    );
    expect(dsym.status).toBe(201);
    expect(dsym.body).toMatchObject({ debug_id: 'ABCD-12', module: 'Shop.app.dSYM.zip' });
  });

  it('symbolicates on ingest when a matching source map exists; the signature is stable across releases', async () => {
    const f1 = webFrames(R1, R1_URL);
    const f2 = webFrames(R2, R2_URL);
    const f3 = webFrames(R1, 'https://shop.example/static/app.min.js');
    const res = await ingest({
      crashes: [
        crash('web_r1', 'web', '1.0.0', f1),
        crash('web_r2', 'Web', '1.1.0', f2),
        crash('web_unmapped_release', 'web', '2.0.0', f3),
        crash('web_own_signature', 'web', '1.0.0', f1, { signature: 'ABCDEF0123456789' }),
      ],
    });
    expect(res.status).toBe(200);

    const e1 = expectedWebFrames(R1, R1_URL);
    const e2 = expectedWebFrames(R2, R2_URL);
    expect(await stored('web_r1')).toEqual([{ frames: e1, symbolicated: 1 }]);
    expect(await stored('web_r2')).toEqual([{ frames: e2, symbolicated: 1 }]);
    // Original names: checkStock, validateCart, submitOrder in both builds.
    expect(e1.slice(0, 3).map((f) => f.function)).toEqual(['checkStock', 'validateCart', 'submitOrder']);
    const stable = expectedSignature('TypeError', e1);
    expect(await signatureOf('web_r1')).toBe(stable);
    expect(await signatureOf('web_r2')).toBe(stable);
    // No map for release 2.0.0: nothing stored, signature from the minified names.
    expect(await stored('web_unmapped_release')).toEqual([]);
    expect(await signatureOf('web_unmapped_release')).toBe(expectedSignature('TypeError', f3));
    expect(await signatureOf('web_unmapped_release')).not.toBe(stable);
    // A client-sent signature is kept (lowercased by ingest).
    expect(await signatureOf('web_own_signature')).toBe('abcdef0123456789');
  });

  it('crash.symbolicate on an unknown crash is accepted: false and queues nothing', async () => {
    const res = await callTool('crash.symbolicate', { event_id: 'no_such_crash' });
    expect(res.status).toBe(200);
    expect(crashSymbolicateOutput.parse(res.body)).toEqual({ event_id: 'no_such_crash', accepted: false });
    // Another project's crash is unknown here too.
    const other = await callTool('crash.symbolicate', { event_id: 'web_r1' }, OTHER.projectId);
    expect(other.body).toEqual({ event_id: 'web_r1', accepted: false });
    expect(await pendingJobs(ch, 100)).toEqual([]);
    expect((await callTool('crash.symbolicate', {})).status).toBe(400);
  });

  it('requests accepted with no worker running are done by a worker started later (restart)', async () => {
    const android = crash('android_1', 'android', '5.0', androidFrames);
    const ios = crash('ios_1', 'ios', '3.0', [
      { function: '0x1', file: '', address: '0x10', module: 'Shop', in_app: true },
    ]);
    const win = crash('win_1', 'windows', '1', [{ function: 'main', file: 'a.exe', in_app: true }]);
    expect((await ingest({ crashes: [android, ios, win] })).status).toBe(200);
    for (const id of ['web_before', 'android_1', 'ios_1', 'win_1']) {
      const res = await callTool('crash.symbolicate', { event_id: id });
      expect(res.body).toEqual({ event_id: id, accepted: true });
    }
    expect((await pendingJobs(ch, 100)).map((j) => j.event_id).sort()).toEqual([
      'android_1',
      'ios_1',
      'web_before',
      'win_1',
    ]);

    worker = startSymbolicationWorker({ ch, files, logger: silentLogger, pollMs: 20, symbolicator });
    for (const id of ['web_before', 'android_1', 'ios_1', 'win_1']) await handled(id, 1);
    expect(await pendingJobs(ch, 100)).toEqual([]);

    expect(await stored('web_before')).toEqual([{ frames: expectedWebFrames(R1, R1_URL), symbolicated: 1 }]);
    // Symbolicating later does not move the crash to another issue.
    expect(await signatureOf('web_before')).toBe(expectedSignature('TypeError', webFrames(R1, R1_URL)));

    const raw = (f: StoredFrame) => ({
      function: f.function,
      file: f.file,
      line: null,
      column: null,
      in_app: f.in_app === true,
      address: f.address ?? null,
      module: f.module ?? null,
      debug_id: null,
    });
    const lookup = (address: number) => {
      const fn = breakpadFuncs.find((b) => b.address <= address && address < b.address + b.size)!;
      const rec = fn.lines.find(([a, s]) => a <= address && address < a + s)!;
      return { function: fn.name, file: ['/src/physics.cpp', '/src/render.cpp'][rec[3]]!, line: rec[2] };
    };
    const [a0, a1, a2, a3, a4, a5] = androidFrames;
    expect(await stored('android_1')).toEqual([
      {
        symbolicated: 1,
        frames: [
          { ...raw(a0!), ...lookup(0x1044), symbolicated: true, reason: null },
          { ...raw(a1!), ...lookup(0x2010), symbolicated: true, reason: null },
          { ...raw(a2!), symbolicated: false, reason: REASONS.notInFunction },
          { ...raw(a3!), symbolicated: false, reason: REASONS.badAddress },
          { ...raw(a4!), symbolicated: false, reason: REASONS.noAddress },
          { ...raw(a5!), symbolicated: false, reason: REASONS.noModuleFile },
        ],
      },
    ]);
    const [iosRow] = await stored('ios_1');
    expect(iosRow).toMatchObject({
      symbolicated: 0,
      frames: [{ symbolicated: false, reason: REASONS.onlyRaw }],
    });
    const [winRow] = await stored('win_1');
    expect(winRow).toMatchObject({
      symbolicated: 0,
      frames: [{ symbolicated: false, reason: REASONS.platform }],
    });
  });

  it('re-running is idempotent', async () => {
    const before = await stored('android_1');
    for (let i = 0; i < 2; i += 1) {
      expect((await callTool('crash.symbolicate', { event_id: 'android_1' })).body.accepted).toBe(true);
    }
    await handled('android_1', 3);
    expect(await stored('android_1')).toEqual(before);
  });

  it('explains web frames it cannot map', async () => {
    const url = 'https://shop.example/static/app.min.js';
    const frames: StoredFrame[] = [
      { function: 'q', file: url, line: 1, in_app: true },
      { function: 'q', file: url, line: 7, column: 1, in_app: true },
      { function: 'x', file: '', line: 1, column: 1, in_app: true },
      { function: 'y', file: 'https://shop.example/other.js', line: 1, column: 1, in_app: true },
    ];
    expect((await ingest({ crashes: [crash('web_reasons', 'web', '1.0.0', frames)] })).status).toBe(200);
    const [row] = await stored('web_reasons');
    expect(row!.symbolicated).toBe(0);
    expect(row!.frames.map((f) => f.reason)).toEqual([
      REASONS.noPosition,
      REASONS.noMapping,
      REASONS.noFileName,
      REASONS.noMapForFile,
    ]);
  });

  it('symbol.list lists the files newest first, by platform; a re-upload replaces its file', async () => {
    const again = await upload(
      { kind: 'breakpad', platform: 'android', name: 'libgame.so.sym' },
      `${BREAKPAD}\n`,
    );
    expect(again.status).toBe(201);
    const all = await callTool('symbol.list', {});
    expect(all.status).toBe(200);
    const list = symbolListOutput.parse(all.body);
    expect(list.limit).toBe(1000);
    expect(list.has_more).toBe(false);
    const names = list.items.map((i: DebugFile) => i.name);
    expect(names).toEqual(['libgame.so.sym', 'Shop.app.dSYM.zip', 'r2.map', 'app.min.js.map']);
    expect(list.items.map((i) => i.usable)).toEqual([true, false, true, true]);
    expect(list.items[0]).toMatchObject({
      file_id: again.body.file_id,
      sha256: createHash('sha256').update(`${BREAKPAD}\n`).digest('hex'),
      uploaded_at: new Date(clock).toISOString(),
    });
    const web = symbolListOutput.parse((await callTool('symbol.list', { platform: 'web' })).body);
    expect(web.items.map((i) => [i.name, i.release, i.module])).toEqual([
      ['r2.map', '1.1.0', 'main.8f3a.js'],
      ['app.min.js.map', '1.0.0', 'app.min.js'],
    ]);
    expect((await callTool('symbol.list', { platform: 'linux' })).status).toBe(400);
    expect(symbolListOutput.parse((await callTool('symbol.list', {}, OTHER.projectId)).body).items).toEqual(
      [],
    );
  });

  it('refuses unsigned, malformed, mismatched and oversized uploads', async () => {
    const q = { kind: 'sourcemap', platform: 'web', name: 'x.js.map' };
    const bad = await request(app)
      .post('/ingest/v1/debug-files')
      .query(q)
      .set('X-Svc-Key', KEY.keyId)
      .set('X-Svc-Timestamp', String(Math.floor(clock / 1000)))
      .set('X-Svc-Signature', 'v1=00')
      .send(R1.map);
    expect(bad.status).toBe(401);
    expect((await request(app).post('/ingest/v1/debug-files').query(q).send(R1.map)).status).toBe(401);
    expect((await upload(q, 'not json')).status).toBe(400);
    expect((await upload(q, '{"version":2,"mappings":""}')).status).toBe(400);
    expect((await upload({ ...q, kind: 'breakpad', platform: 'ios' }, 'FUNC 1 1 0 f')).status).toBe(400);
    expect((await upload({ ...q, kind: 'dsym', platform: 'android' }, R1.map)).status).toBe(400);
    expect((await upload({ ...q, kind: 'so', platform: 'web' }, 'x')).status).toBe(400);
    expect((await upload({ ...q, kind: 'zip' }, 'x')).status).toBe(400);
    expect((await upload({ kind: 'sourcemap', platform: 'web' }, R1.map)).status).toBe(400);
    expect((await upload({ ...q, name: 'a\u202Eb' }, R1.map)).status).toBe(400);
    expect((await upload(q, '')).status).toBe(400);
    // An unknown parameter is named in the details, not reported at an empty path.
    const unknown = await upload({ ...q, '%': '' }, R1.map);
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ parameter: '%', reason: 'is not a parameter of this upload' }]);
    expect((await upload(q, Buffer.alloc(65 * 1024, 32))).status).toBe(413);
  });

  it('returns what an uploader put in a file as cleaned, capped data', async () => {
    const hostileFile = `ap\u200Bp\u202E.js ${'x'.repeat(5000)}`;
    const map = JSON.stringify({ version: 3, file: hostileFile, sources: [], names: [], mappings: '' });
    const res = await upload({ kind: 'sourcemap', platform: 'web', name: 'hostile.map', release: '9' }, map);
    expect(res.status).toBe(201);
    const web = symbolListOutput.parse((await callTool('symbol.list', { platform: 'web' })).body);
    const item = web.items.find((i) => i.name === 'hostile.map')!;
    expect(item.module).not.toMatch(/[\u200B\u202E]/);
    expect(item.module!.startsWith('app.js xxx')).toBe(true);
    expect(item.module!.length).toBeLessThanOrEqual(256);
  });

  it('never uses a client name as a path', async () => {
    const hostile = ['../../../../tmp/evil', '..\\..\\evil.so', '/etc/passwd', '%2e%2e%2fx', 'a/../../b.so'];
    for (const name of hostile) {
      const res = await upload({ kind: 'so', platform: 'android', name }, Buffer.from(`bytes of ${name}`));
      expect(res.status).toBe(201);
    }
    // Only <2 hex>/<64 hex> entries exist under the store, one per distinct content.
    const entries = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
    for (const entry of entries) expect(entry).toMatch(/^[0-9a-f]{2}\/[0-9a-f]{64}$/);
    const listed = symbolListOutput.parse((await callTool('symbol.list', { platform: 'android' })).body);
    expect(
      listed.items
        .filter((i) => i.kind === 'so')
        .map((i) => i.name)
        .sort(),
    ).toEqual([...hostile].sort());
  });
});
