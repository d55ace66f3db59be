import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { signIngest } from '@svc/sdk-core';
import { nodeHmacHex } from '@svc/sdk-core/testing';
import { STACK_SETUP_TIMEOUT_MS } from '@svc/standalone/testing';
import { startTestStack, type TestStack } from '../testing/stack';
import { breakpadModuleId, breakpadSymbolFile, nativeFunctions } from './cli-app/native-symbols';
import { CHECKOUT_JS, GAME_C, lineOf, MAPPING_TXT, v8Frames, WEB_ENTRY } from './cli-app/sources';
import { CommandError, createApp, type ThrowawayApp, versionHere } from './testing';

// @svc/cli from its tarball, installed by npm into a throwaway app outside the repository, its bin
// run with plain node against a spawned stack: it uploads the app's build output for each
// platform (web: esbuild's minified bundle and map; Android: R8's mapping.txt and an NDK library
// gcc builds here; iOS: a Breakpad symbol file; React Native: the bundle's map), then crashes whose
// frames point into that output come back from crash.get mapped to the app's source. Expected
// lines are read from the sources the test wrote.

const RELEASE = '3.1.0';

interface Frame {
  function: string;
  file: string;
  line: number | null;
  symbolicated: boolean;
  reason: string | null;
}

let stack: TestStack;
let app: ThrowawayApp;

beforeAll(async () => {
  [stack, app] = await Promise.all([
    startTestStack(),
    createApp({
      name: 'cli-shop',
      type: 'module',
      packages: ['@svc/cli'],
      devDependencies: { esbuild: versionHere('esbuild') },
      files: {
        'src/checkout.js': CHECKOUT_JS,
        'src/web.js': WEB_ENTRY,
        'native/game.c': GAME_C,
        'android/app/build/outputs/mapping/release/mapping.txt': MAPPING_TXT,
      },
    }),
  ]);
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await app?.remove();
  await stack?.close();
});

/** The installed bin, run by plain node in the app's folder; rejects with a CommandError unless it exits 0. */
const svcCli = (...args: string[]) =>
  app.run(process.execPath, [join('node_modules', '.bin', 'svc-cli'), ...args], { SVC_DSN: stack.dsn });

// esbuild's bin is its native executable once installed.
const esbuild = (entry: string, outfile: string) =>
  app.run(join(app.dir, 'node_modules', '.bin', 'esbuild'), [
    entry,
    '--bundle',
    '--minify',
    '--sourcemap',
    '--format=iife',
    `--outfile=${outfile}`,
  ]);

/** What V8 prints running a built bundle that crashes (runCheckout throws). */
async function crashStack(bundle: string): Promise<string> {
  const script = `require(${JSON.stringify(bundle)}); try { runCheckout(); } catch (e) { console.log(e.stack); }`;
  const { stdout } = await app.run(process.execPath, ['--input-type=commonjs', '-e', script]);
  return stdout;
}

async function ingestCrash(eventId: string, platform: string, frames: Record<string, unknown>[]) {
  const body = JSON.stringify({
    crashes: [
      {
        event_id: eventId,
        timestamp: new Date().toISOString(),
        error_type: 'Error',
        message: 'out of stock',
        frames,
        breadcrumbs: [],
        platform,
        app_version: RELEASE,
        device_os: platform,
      },
    ],
  });
  const key = { keyId: stack.key.key_id, secret: stack.key.secret };
  const res = await fetch(`${stack.stack.ready.urls.core}/ingest/v1/batch`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signIngest(key, Math.floor(Date.now() / 1000), body, nodeHmacHex),
    },
    body,
  });
  if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
}

async function symbolicated(eventId: string): Promise<Frame[]> {
  const got = await stack.tool<{ crash: { symbolicated_frames: Frame[] | null } | null }>('crash.get', {
    event_id: eventId,
  });
  return got.crash?.symbolicated_frames ?? [];
}

const checkoutLines = ['@throw', '@stock', '@submit'].map((m) => lineOf(CHECKOUT_JS, m));

it('web: the minified bundle esbuild built crashes; crash.get maps its frames to src/checkout.js', async () => {
  await esbuild('src/web.js', 'dist/assets/app.min.js');
  const run = await svcCli('upload', 'sourcemaps', 'dist', '--release', RELEASE);
  expect(run.stdout).toMatch(/^uploaded {2}sourcemap\/web {2}assets\/app\.min\.js\.map /);

  // The three functions of checkout.js and runCheckout's arrow, whose call names the third.
  const frames = v8Frames(await crashStack('./dist/assets/app.min.js')).slice(0, 4);
  await ingestCrash(
    'cli_web',
    'web',
    frames.map((f) => ({ ...f, file: 'https://shop.example/assets/app.min.js', in_app: true })),
  );
  const mapped = (await symbolicated('cli_web')).slice(0, 3);
  expect(mapped.map((f) => [f.file.replace(/^(\.\.\/)+/, ''), f.line, f.symbolicated])).toEqual(
    checkoutLines.map((line) => ['src/checkout.js', line, true]),
  );
  expect(mapped.map((f) => f.function)).toEqual(['checkStock', 'submitOrder', 'checkout']);
});

it('android: the NDK library gcc built and its symbols, R8 mapping; native and Java frames mapped', async () => {
  mkdirSync(join(app.dir, 'native/lib'), { recursive: true });
  await app.run('gcc', [
    '-shared',
    '-fPIC',
    '-g',
    '-O0',
    '-o',
    'native/lib/libgame.so',
    'native/game.c',
    '-Wl,--build-id',
  ]);
  const buildId = (await app.run('readelf', ['-n', 'native/lib/libgame.so'])).stdout.match(
    /Build ID: ([0-9a-f]+)/,
  )![1]!;
  const funcs = await nativeFunctions(app.run, join(app.dir, 'native/lib/libgame.so'), [
    'render_frame',
    'physics_step',
  ]);
  app.write(
    'native/symbols/libgame.so.sym',
    breakpadSymbolFile('Linux', 'x86_64', breakpadModuleId(buildId), 'libgame.so', funcs),
  );

  const ndk = await svcCli('ndk', 'native/lib', '--release', RELEASE, '--json');
  const [line] = ndk.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(line).toMatchObject({ status: 'uploaded', kind: 'so', platform: 'android', debug_id: buildId });
  await svcCli('breakpad', 'native/symbols', '--release', RELEASE);
  await svcCli('proguard', 'android/app/build/outputs/mapping/release', '--release', RELEASE);

  await ingestCrash('cli_android', 'android', [
    {
      function: '??',
      file: '',
      address: `0x${(funcs[1]!.address + 4).toString(16)}`,
      module: 'libgame.so',
      in_app: true,
    },
    {
      function: '??',
      file: '',
      address: `0x${(funcs[0]!.address + 8).toString(16)}`,
      module: 'libgame.so',
      in_app: true,
    },
    // R8's names: a.a.b is Checkout.checkStock, its line 7 is source line 40 + (7 - 6).
    { function: 'a.a.b', file: 'SourceFile', line: 7, in_app: true },
  ]);
  const mapped = await symbolicated('cli_android');
  expect(mapped.map((f) => [f.function, f.file, f.line, f.symbolicated])).toEqual([
    ['physics_step', funcs[1]!.file, funcs[1]!.line, true],
    ['render_frame', funcs[0]!.file, funcs[0]!.line, true],
    ['com.example.shop.Checkout.checkStock', 'Checkout.kt', 41, true],
  ]);
  const listed = await stack.tool<{ items: { kind: string; debug_id: string | null }[] }>('symbol.list', {
    platform: 'android',
  });
  expect(listed.items.map((f) => [f.kind, f.debug_id]).sort()).toEqual(
    [
      ['breakpad', breakpadModuleId(buildId)],
      ['proguard', '5B46F4F'],
      ['so', buildId.toUpperCase()],
    ].sort(),
  );
});

it("ios: the engine's Breakpad symbols; native frames mapped", async () => {
  const funcs = [
    { name: 'Cart::checkout()', address: 0x4000, size: 0x60, file: 'Shop/Cart.mm', line: 31 },
    { name: 'Stock::reserve(int)', address: 0x4100, size: 0x40, file: 'Shop/Stock.mm', line: 12 },
  ];
  app.write(
    'ios/symbols/ShopEngine.sym',
    breakpadSymbolFile('iOS', 'arm64', '8A1F3C2E9B7D4E6F8A1F3C2E9B7D4E6F0', 'ShopEngine', funcs),
  );
  await svcCli('breakpad', 'ios/symbols', '--release', RELEASE);
  await ingestCrash('cli_ios', 'ios', [
    { function: '??', file: '', address: '0x4110', module: 'ShopEngine', in_app: true },
    { function: '??', file: '', address: '0x4020', module: 'ShopEngine', in_app: true },
  ]);
  expect((await symbolicated('cli_ios')).map((f) => [f.function, f.file, f.line, f.symbolicated])).toEqual([
    ['Stock::reserve(int)', 'Shop/Stock.mm', 12, true],
    ['Cart::checkout()', 'Shop/Cart.mm', 31, true],
  ]);
});

it("react native: the bundle's map for each platform; the bundle's crash mapped to src/checkout.js", async () => {
  // A JavaScriptCore/V8 build: the bundle and its map as the bundler wrote them.
  await esbuild('src/web.js', 'rn/ios/main.jsbundle');
  await esbuild('src/web.js', 'rn/android/index.android.bundle');
  await svcCli(
    'react-native',
    '--platform',
    'ios',
    '--bundle-map',
    'rn/ios/main.jsbundle.map',
    '--release',
    RELEASE,
  );
  await svcCli(
    'react-native',
    '--platform',
    'android',
    '--bundle-map',
    'rn/android/index.android.bundle.map',
    '--release',
    RELEASE,
  );

  for (const [platform, bundle] of [
    ['ios', 'rn/ios/main.jsbundle'],
    ['android', 'rn/android/index.android.bundle'],
  ] as const) {
    const frames = v8Frames(await crashStack(`./${bundle}`)).slice(0, 3);
    const name = bundle.split('/').pop()!;
    await ingestCrash(
      `cli_rn_${platform}`,
      platform,
      frames.map((f) => ({ ...f, file: name, in_app: true })),
    );
    const mapped = await symbolicated(`cli_rn_${platform}`);
    expect(mapped.map((f) => [f.file.replace(/^(\.\.\/)+/, ''), f.line, f.symbolicated])).toEqual(
      checkoutLines.map((line) => ['src/checkout.js', line, true]),
    );
  }
});

it('the bin exits 2 on a usage error and sends nothing on a dry run', async () => {
  const usage = await svcCli('sourcemaps', 'no-such-dir').catch((err: unknown) => err);
  expect(usage).toBeInstanceOf(CommandError);
  expect((usage as CommandError).code).toBe(2);
  expect((usage as CommandError).stderr).toMatch(/No such file or directory: no-such-dir/);

  const before = await stack.tool<{ items: unknown[] }>('symbol.list', {});
  const dry = await svcCli('sourcemaps', 'dist', '--dry-run', '--release', '9.9.9');
  const sha256 = createHash('sha256')
    .update(readFileSync(join(app.dir, 'dist/assets/app.min.js.map')))
    .digest('hex');
  expect(dry.stdout).toMatch(
    new RegExp(`^would upload {2}sourcemap/web {2}assets/app\\.min\\.js\\.map .* sha256=${sha256} `),
  );
  expect((await stack.tool<{ items: unknown[] }>('symbol.list', {})).items).toHaveLength(before.items.length);
});
