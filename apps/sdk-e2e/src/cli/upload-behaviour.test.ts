import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { breakpadSym, cli, jsonLines, webBundle, writeFile } from '@svc/cli/testing';
import { type CliTestCore, KEY, startCliTestCore } from '../testing/cli-core';

// How an upload run behaves, against a real core behind a proxy that sees every request and can
// cut a connection or answer for the core: each content once, retries that end stored once,
// errors that are not retried, a refused key, a dry run that sends nothing, and the exit codes.

interface Listed {
  file_id: string;
  name: string;
  sha256: string;
}

describe('svc-cli upload runs', () => {
  let t: CliTestCore;
  let root: string;
  let n = 0;
  /** A directory of its own with `count` distinct source maps. */
  const mapsDir = (count: number) => {
    const dir = join(root, `maps-${++n}`);
    for (let i = 0; i < count; i++) writeFile(dir, `m${n}-${i}.js.map`, webBundle(`m${n}-${i}.js`).map);
    return dir;
  };
  const uploadsSeen = () => t.seen.filter((r) => r.path === '/ingest/v1/debug-files');
  const listed = async () => (await t.core.tool<{ items: Listed[] }>('symbol.list', {})).items;

  beforeAll(async () => {
    t = await startCliTestCore('cli_runs');
    root = mkdtempSync(join(tmpdir(), 'svc-cli-runs-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    t.seen.length = 0;
  });

  it('uploads the same bytes once per run, however often they are found', async () => {
    const dir = mapsDir(1);
    const copy = join(root, `copy-${n}`);
    writeFile(copy, `m${n}-0.js.map`, webBundle(`m${n}-0.js`).map);
    const run = await cli(['sourcemaps', dir, copy, dir, '--dsn', t.dsn(), '--json']);
    expect(run.code).toBe(0);
    const lines = jsonLines(run);
    expect(lines.filter((l) => l.status === 'uploaded')).toHaveLength(1);
    expect(lines.filter((l) => l.status === 'duplicate')).toHaveLength(2);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', uploaded: 1, duplicate: 2, exit_code: 0 });
    expect(uploadsSeen()).toHaveLength(1);
  });

  it('retries an upload whose answer was lost (connection cut after the core stored it): one file stored', async () => {
    const dir = mapsDir(1);
    t.misbehave({ kind: 'lose-answer' });
    const run = await cli(['sourcemaps', dir, '--dsn', t.dsn(), '--json']);
    expect(run.code).toBe(0);
    expect(jsonLines(run)[0]).toMatchObject({ status: 'uploaded', attempts: 2 });
    const sent = uploadsSeen();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.query.toString()).toBe(sent[0]!.query.toString());
    const name = `m${n}-0.js.map`;
    expect((await listed()).filter((f) => f.name === name)).toHaveLength(1);
  });

  it('retries a cut connection, 503 and 429 (after its Retry-After), signing each attempt anew', async () => {
    const dir = mapsDir(1);
    const busy = '{"error":"backend_unavailable","message":"Storage is unavailable."}';
    t.misbehave(
      { kind: 'cut' },
      { kind: 'answer', status: 503, body: busy },
      {
        kind: 'answer',
        status: 429,
        body: '{"error":"rate_limited","message":"Slow down."}',
        headers: { 'retry-after': '1' },
      },
    );
    const run = await cli(['sourcemaps', dir, '--dsn', t.dsn()]);
    expect(run.code).toBe(0);
    expect(run.out[0]).toMatch(/^uploaded .*\(4 attempts\)/);
    const sent = uploadsSeen();
    expect(sent).toHaveLength(4);
    // The last attempt came at least a second (Retry-After) after the first: signed with its own time.
    expect(Number(sent[3]!.timestamp)).toBeGreaterThan(Number(sent[0]!.timestamp));
  });

  it('gives up after --retries and says why: exit 1', async () => {
    const dir = mapsDir(1);
    const busy = { kind: 'answer', status: 502, body: 'Bad gateway' } as const;
    t.misbehave(busy, busy);
    const run = await cli(['sourcemaps', dir, '--dsn', t.dsn(), '--retries', '1']);
    expect(run.code).toBe(1);
    expect(run.out[0]).toMatch(/^FAILED .*: 502 Bad gateway \(gave up after 2 attempts\)$/);
    expect(uploadsSeen()).toHaveLength(2);
  });

  it("does not retry a 400 and prints the core's message and details: exit 1, the other files uploaded", async () => {
    const dir = mapsDir(2);
    const run = await cli([
      'sourcemaps',
      dir,
      '--dsn',
      t.dsn(),
      '--release',
      'x'.repeat(101),
      '--concurrency',
      '1',
    ]);
    expect(run.code).toBe(1);
    expect(run.out).toHaveLength(2);
    for (const line of run.out)
      expect(line).toMatch(/^FAILED .*: 400 Invalid debug file upload parameters\. \(release: .+\)$/);
    expect(uploadsSeen()).toHaveLength(2); // once per file: never retried
    expect(run.err.at(-1)).toMatch(/^0 uploaded, 2 failed/);
  });

  it('stops at a refused key: exit 3, nothing more sent', async () => {
    const dir = mapsDir(3);
    const run = await cli(['sourcemaps', dir, '--concurrency', '1'], { SVC_DSN: t.dsn('not-the-secret') });
    expect(run.code).toBe(3);
    expect(run.out[0]).toMatch(
      /^REFUSED .*: 401 A valid ingest key, timestamp and signature are required\..*clock/,
    );
    expect(run.out.slice(1).every((l) => l.startsWith('not sent'))).toBe(true);
    expect(uploadsSeen()).toHaveLength(1);
  });

  it('--dry-run prints each file and sends nothing (the next real upload is the first request to arrive)', async () => {
    const dir = mapsDir(2);
    const dry = await cli(['sourcemaps', dir, '--dry-run', '--release', '1.0.0', '--dsn', t.dsn(), '--json']);
    expect(dry.code).toBe(0);
    const files = jsonLines(dry).filter((l) => l.type === 'file');
    expect(files.map((f) => [f.status, f.kind, f.platform, f.release])).toEqual([
      ['would_upload', 'sourcemap', 'web', '1.0.0'],
      ['would_upload', 'sourcemap', 'web', '1.0.0'],
    ]);
    expect(files[0]).toEqual(
      expect.objectContaining({
        name: expect.any(String),
        debug_id: null,
        size_bytes: expect.any(Number),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    );
    // Without a DSN too: a dry run needs no key.
    expect((await cli(['sourcemaps', dir, '--dry-run'])).code).toBe(0);

    const marker = join(root, 'marker');
    writeFile(marker, 'marker.js.map', webBundle('marker.js').map);
    expect((await cli(['sourcemaps', marker, '--dsn', t.dsn()])).code).toBe(0);
    expect(t.seen.map((r) => r.query.get('name'))).toEqual(['marker.js.map']);
  });

  it('refuses a bad run with exit 2 before sending anything', async () => {
    const dir = mapsDir(1);
    writeFile(root, 'bad/broken.js.map', '{"version": 3, "sources": []}');
    writeFile(root, 'collide/a/same.js.map', webBundle('one.js').map);
    writeFile(root, 'collide/b/same.js.map', webBundle('two.js').map);
    writeFile(root, 'empty/readme.txt', 'no maps here');
    writeFile(root, 'sym/odd.sym', breakpadSym('windows', 'x86', 'AB', 'odd.dll', []));
    const dsn = t.dsn();
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[], {}, /Usage: svc-cli/],
      [['upload'], {}, /Usage: svc-cli/],
      [['symbols', dir], {}, /Unknown command "symbols"/],
      [['sourcemaps', dir, '--dsn', dsn, '--colour'], {}, /Unknown option '--colour'/],
      [['sourcemaps', '--dsn', dsn], {}, /Name at least one file or directory/],
      [['sourcemaps', join(root, 'nowhere'), '--dsn', dsn], {}, /No such file or directory/],
      [['sourcemaps', join(root, 'empty'), '--dsn', dsn], {}, /No files to upload found/],
      [['sourcemaps', join(root, 'bad'), '--dsn', dsn], {}, /broken\.js\.map is not a source map/],
      [
        ['sourcemaps', join(root, 'collide/a'), join(root, 'collide/b'), '--dsn', dsn],
        {},
        /would both be uploaded as sourcemap\/web "same\.js\.map"/,
      ],
      [['sourcemaps', dir], {}, /No DSN: give --dsn or set SVC_DSN/],
      [
        ['sourcemaps', dir],
        { SVC_DSN: `http://${KEY.keyId}@localhost/p` },
        /SVC_DSN: The DSN must look like/,
      ],
      [
        ['sourcemaps', dir, '--dsn', dsn, '--concurrency', '0'],
        {},
        /--concurrency must be a whole number from 1 to 16/,
      ],
      [['breakpad', join(root, 'sym'), '--dsn', dsn], {}, /MODULE OS "windows" is neither iOS nor Android/],
      [['react-native', '--platform', 'android', '--dsn', dsn], {}, /--bundle-map <file> is required/],
      [
        ['react-native', '--bundle-map', join(dir, `m${n}-0.js.map`), '--dsn', dsn],
        {},
        /--platform ios\|android is required/,
      ],
    ];
    for (const [argv, env, message] of cases) {
      const run = await cli(argv, env);
      expect({ argv, code: run.code }).toEqual({ argv, code: 2 });
      expect(run.err.join('\n')).toMatch(message);
    }
    expect(uploadsSeen()).toEqual([]);
  });

  it('--help of every command and --version answer on stdout with exit 0', async () => {
    for (const command of ['dsym', 'proguard', 'ndk', 'breakpad', 'sourcemaps', 'react-native']) {
      const run = await cli(['upload', command, '--help']);
      expect(run.code).toBe(0);
      expect(run.out.join('\n')).toMatch(
        new RegExp(`^Usage: svc-cli upload ${command} [\\s\\S]*Exit codes:`),
      );
    }
    expect((await cli(['--help'])).out.join('\n')).toMatch(/Commands:[\s\S]*react-native/);
    expect((await cli(['--version'])).out).toEqual([expect.stringMatching(/^\d+\.\d+\.\d+/)]);
  });
});
