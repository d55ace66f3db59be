import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { eventually, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import {
  adminOf,
  bearer,
  callBoth,
  callRest,
  connectMcp,
  type IngestKey,
  newProject,
  signedPost,
} from './support';

// symbol.list and crash.symbolicate through the whole stack (`pnpm start`), over REST and the
// official MCP SDK client: debug files uploaded to the core's signed upload endpoint, crashes
// ingested before and after, the background worker's result read back with crash.get.

let stack: SpawnedStack;
let mcp: Client;
let token: string;
let key: IngestKey;

// A hand-written source map of a one-line bundle `a(){b()}...`: generated column 0 is the call
// token `validateCart` (src/cart.ts line 1), generated column 10 the `throw` (line 5, no name).
// VLQ: "AAAAA" = col 0, source 0, line 0, col 0, name 0; "UAIA" = col +10, line +4.
const SOURCE_MAP = JSON.stringify({
  version: 3,
  file: 'bundle.min.js',
  sources: ['src/cart.ts'],
  names: ['validateCart'],
  mappings: 'AAAAA,UAIA',
});
const BREAKPAD = [
  'MODULE Linux arm64 00112233445566778899AABBCCDDEEFF0 libshop.so',
  'FILE 0 /src/shop/cart.cpp',
  'FUNC 1000 100 0 Cart::total()',
  '1000 80 21 0',
  '1080 80 27 0',
  '',
].join('\n');

const rest = (tool: string, body: unknown) => callRest(stack.ready.urls.gateway, tool, body, bearer(token));

const both = (tool: string, args: Record<string, unknown>) =>
  callBoth(stack.ready.urls.gateway, mcp, bearer(token), tool, args);

const post = (path: string, body: string, contentType: string) =>
  signedPost(stack.ready.urls.core, key, path, body, contentType);

const crash = (event_id: string, platform: string, frames: unknown[]) => ({
  event_id,
  timestamp: new Date(Date.now() - 60_000).toISOString(),
  error_type: 'TypeError',
  message: 'cart failed',
  frames,
  breadcrumbs: [],
  platform,
  app_version: '2.0.0',
  device_os: 'x',
});
const WEB_FRAMES = [
  { function: 'b', file: 'https://shop.example/bundle.min.js', line: 1, column: 11, in_app: true },
  { function: 'a', file: 'https://shop.example/bundle.min.js', line: 1, column: 1, in_app: true },
];

beforeAll(async () => {
  // The test reads its own project's records: the demo beside them needs to exist, not be big.
  stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.05' } });
  ({ token, key } = await newProject(adminOf(stack), 'symbols-e2e'));
  mcp = await connectMcp(stack.ready.urls.mcp, bearer(token), 'e2e-symbols');
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.dispose();
});

describe('symbols through the stack', () => {
  it('a crash ingested before its source map is symbolicated by crash.symbolicate; symbol.list lists the files', async () => {
    const early = await post(
      '/ingest/v1/batch',
      JSON.stringify({ crashes: [crash('web_early', 'web', WEB_FRAMES)] }),
      'application/json',
    );
    expect(early.status).toBe(200);

    const map = await post(
      '/ingest/v1/debug-files?kind=sourcemap&platform=web&name=bundle.min.js.map&release=2.0.0',
      SOURCE_MAP,
      'application/octet-stream',
    );
    expect(map.status).toBe(201);
    const bp = await post(
      '/ingest/v1/debug-files?kind=breakpad&platform=android&name=libshop.so.sym',
      BREAKPAD,
      'application/octet-stream',
    );
    expect(bp.status).toBe(201);

    const listed = await both('symbol.list', {});
    expect(listed.mcp).toEqual(listed.rest);
    expect(
      (listed.rest.items as Record<string, unknown>[]).map((i) => [i.name, i.kind, i.platform, i.module]),
    ).toEqual([
      ['libshop.so.sym', 'breakpad', 'android', 'libshop.so'],
      ['bundle.min.js.map', 'sourcemap', 'web', 'bundle.min.js'],
    ]);
    expect((await both('symbol.list', { platform: 'ios' })).rest).toEqual({
      items: [],
      limit: 1000,
      has_more: false,
    });
    expect((await rest('symbol.list', { platform: 'windows' })).status).toBe(400);

    const queued = await both('crash.symbolicate', { event_id: 'web_early' });
    expect(queued.rest).toEqual({ event_id: 'web_early', accepted: true });
    expect(queued.mcp).toEqual(queued.rest);
    expect((await both('crash.symbolicate', { event_id: 'nope' })).rest).toEqual({
      event_id: 'nope',
      accepted: false,
    });

    let got: Record<string, unknown> = {};
    await eventually('web_early symbolicated', async () => {
      got = (await rest('crash.get', { event_id: 'web_early' })).body;
      return !!(got.crash as Record<string, unknown> | null)?.symbolicated_frames;
    });
    const detail = got.crash as Record<string, unknown>;
    expect(detail.symbolicated).toBe(true);
    expect(detail.frames).toEqual(
      WEB_FRAMES.map((f) => ({ ...f, address: null, module: null, debug_id: null })),
    );
    expect(detail.symbolicated_frames).toEqual([
      // The top frame's name is the token its caller called: validateCart.
      {
        ...WEB_FRAMES[0],
        function: 'validateCart',
        file: 'src/cart.ts',
        line: 5,
        column: 1,
        address: null,
        module: null,
        debug_id: null,
        symbolicated: true,
        reason: null,
      },
      {
        ...WEB_FRAMES[1],
        file: 'src/cart.ts',
        line: 1,
        column: 1,
        address: null,
        module: null,
        debug_id: null,
        symbolicated: true,
        reason: null,
      },
    ]);
  });

  it('a native crash ingested after its Breakpad file is symbolicated on ingest', async () => {
    const frames = [{ function: '??', file: '', address: '0x1090', module: 'libshop.so', in_app: true }];
    const res = await post(
      '/ingest/v1/batch',
      JSON.stringify({ crashes: [crash('android_late', 'android', frames)] }),
      'application/json',
    );
    expect(res.status).toBe(200);
    const { rest: got, mcp: viaMcp } = await both('crash.get', { event_id: 'android_late' });
    expect(viaMcp).toEqual(got);
    expect((got.crash as Record<string, unknown>).symbolicated_frames).toEqual([
      {
        ...frames[0],
        function: 'Cart::total()',
        file: '/src/shop/cart.cpp',
        line: 27,
        column: null,
        debug_id: null,
        symbolicated: true,
        reason: null,
      },
    ]);
  });
});
