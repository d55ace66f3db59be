import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  breakpadSym,
  CPU,
  cli,
  elf32,
  expectedAt,
  fatMachO,
  gccSharedLibrary,
  HERMES,
  hermesMap,
  jsonLines,
  METRO,
  metroMap,
  r8Mapping,
  type SymFunction,
  thinMachO,
  uuidText,
  webBundle,
  writeFile,
} from '@svc/cli/testing';
import { type CliTestCore, startCliTestCore } from '../testing/cli-core';

// Every kind from a build directory to a real core: what symbol.list then lists (names, debug ids,
// hashes computed here from the files), and crashes symbolicated with what was uploaded.

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const RELEASE = '2.4.1';

interface Listed {
  kind: string;
  platform: string;
  name: string;
  release: string | null;
  debug_id: string | null;
  module: string | null;
  sha256: string;
  size_bytes: number;
}
interface SymbolicatedFrame {
  function: string;
  file: string;
  line: number | null;
  symbolicated: boolean;
  reason: string | null;
}

describe('svc-cli uploads every kind', () => {
  let t: CliTestCore;
  let root: string;
  const listed = async () =>
    (await t.core.tool<{ items: Listed[] }>('symbol.list', {})).items.sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
  const byName = async (name: string) => (await listed()).find((f) => f.name === name);
  const crashFrames = async (eventId: string) => {
    const got = await t.core.tool<{ crash: { symbolicated_frames: SymbolicatedFrame[] | null } }>(
      'crash.get',
      {
        event_id: eventId,
      },
    );
    return got.crash.symbolicated_frames;
  };
  const crash = (eventId: string, platform: string, frames: Record<string, unknown>[]) => ({
    event_id: eventId,
    timestamp: new Date().toISOString(),
    error_type: 'Error',
    message: 'out of stock',
    frames,
    breadcrumbs: [],
    platform,
    app_version: RELEASE,
    device_os: platform,
  });

  beforeAll(async () => {
    t = await startCliTestCore('cli_kinds');
    root = mkdtempSync(join(tmpdir(), 'svc-cli-kinds-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('dsym: one upload per architecture of every Mach-O in each bundle, by LC_UUID', async () => {
    const arm = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
    const x86 = Buffer.from('fedcba9876543210fedcba9876543210', 'hex');
    const kit = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const armSlice = thinMachO({
      cputype: CPU.arm64[0],
      cpusubtype: CPU.arm64[1],
      uuid: arm,
      payload: 'shop arm64',
    });
    const x86Slice = thinMachO({
      cputype: CPU.x86_64[0],
      cpusubtype: CPU.x86_64[1],
      uuid: x86,
      payload: 'shop x86',
    });
    const fat = fatMachO([
      { cputype: CPU.arm64[0], cpusubtype: CPU.arm64[1], bytes: armSlice },
      { cputype: CPU.x86_64[0], cpusubtype: CPU.x86_64[1], bytes: x86Slice },
    ]);
    const dwarf = 'Contents/Resources/DWARF';
    writeFile(root, `ios/archive/dSYMs/Shop.app.dSYM/${dwarf}/Shop`, fat);
    const kitBytes = thinMachO({ cputype: CPU.arm64[0], cpusubtype: CPU.arm64[1], uuid: kit });
    writeFile(root, `ios/archive/dSYMs/ShopKit.framework.dSYM/${dwarf}/ShopKit`, kitBytes);

    const run = await cli([
      'upload',
      'dsym',
      join(root, 'ios/archive'),
      '--release',
      RELEASE,
      '--dsn',
      t.dsn(),
    ]);
    expect(run).toMatchObject({ code: 0 });
    expect(run.out).toHaveLength(3);
    const expected = [
      ['Shop.app.dSYM/arm64/Shop', uuidText(arm), armSlice],
      ['Shop.app.dSYM/x86_64/Shop', uuidText(x86), x86Slice],
      ['ShopKit.framework.dSYM/arm64/ShopKit', uuidText(kit), kitBytes],
    ] as const;
    for (const [name, uuid, bytes] of expected)
      expect(await byName(name)).toMatchObject({
        kind: 'dsym',
        platform: 'ios',
        release: RELEASE,
        debug_id: uuid,
        sha256: sha256(bytes),
        size_bytes: bytes.length,
      });
  });

  it('ndk: each .so under its ABI, with its ELF build id', async () => {
    const hostId = 'aa00bb11cc22dd33ee44ff5566778899aabbccdd';
    const built = gccSharedLibrary(root, 'libgame-host.so', hostId);
    const host = readFileSync(built);
    writeFile(root, 'android/native/x86_64/libgame.so', host);
    const armv7 = elf32(40, Buffer.from('c0ffee00c0ffee01', 'hex'), false);
    writeFile(root, 'android/native/armeabi-v7a/libgame.so', armv7);
    writeFile(root, 'android/native/README.txt', 'not a library');

    const run = await cli([
      'ndk',
      join(root, 'android/native'),
      '--release',
      RELEASE,
      '--dsn',
      t.dsn(),
      '--json',
    ]);
    expect({ code: run.code, failed: run.out.filter((l) => !l.includes('"uploaded"')) }).toEqual({
      code: 0,
      failed: [],
    });
    expect(jsonLines(run).filter((l) => l.type === 'file')).toHaveLength(2);
    const hostAbi = ({ x64: 'x86_64', arm64: 'arm64-v8a' } as Record<string, string>)[process.arch];
    expect(await byName(`${hostAbi}/libgame.so`)).toMatchObject({
      kind: 'so',
      platform: 'android',
      debug_id: hostId.toUpperCase(),
      module: 'libgame.so',
      sha256: sha256(host),
    });
    expect(await byName('armeabi-v7a/libgame.so')).toMatchObject({
      debug_id: 'C0FFEE00C0FFEE01',
      sha256: sha256(armv7),
    });
  });

  it("proguard: R8's mapping.txt with its pg_map_id; Java frames deobfuscated", async () => {
    const mapping = r8Mapping('5b46f4f');
    writeFile(root, 'android/app/build/outputs/mapping/release/mapping.txt', mapping);
    writeFile(root, 'android/app/build/outputs/mapping/release/usage.txt', 'not a mapping');
    const run = await cli([
      'proguard',
      join(root, 'android/app/build/outputs'),
      '--release',
      RELEASE,
      '--dsn',
      t.dsn(),
    ]);
    expect(run.code).toBe(0);
    expect(await byName('mapping.txt')).toMatchObject({
      kind: 'proguard',
      platform: 'android',
      debug_id: '5B46F4F',
      sha256: sha256(mapping),
    });
    // a.a.b is Checkout.checkStock, lines 6-9 of it are source lines 40-43.
    await t.core.ingest({
      crashes: [crash('pg_1', 'android', [{ function: 'a.a.b', file: 'SourceFile', line: 7, in_app: true }])],
    });
    expect(await crashFrames('pg_1')).toMatchObject([
      { function: 'com.example.shop.Checkout.checkStock', file: 'Checkout.kt', line: 41, symbolicated: true },
    ]);
  });

  it('breakpad: the platform from the MODULE line; crash frames of both platforms symbolicated', async () => {
    const funcs: SymFunction[] = [
      { address: 0x1000, size: 0x80, name: 'Physics::step(float)', file: '/src/physics.cpp', line: 12 },
      { address: 0x2000, size: 0x40, name: 'Renderer::draw()', file: '/src/render.cpp', line: 42 },
    ];
    const androidId = 'ABCDEF0123456789ABCDEF01234567890';
    const iosId = '0123456789ABCDEF0123456789ABCDEF0';
    writeFile(
      root,
      'symbols/libphysics.so.sym',
      breakpadSym('Linux', 'arm64', androidId, 'libphysics.so', funcs),
    );
    writeFile(root, 'symbols/ShopEngine.sym', breakpadSym('iOS', 'arm64', iosId, 'ShopEngine', funcs));

    const run = await cli(['breakpad', join(root, 'symbols'), '--release', RELEASE, '--dsn', t.dsn()]);
    expect(run.code).toBe(0);
    expect(await byName(`libphysics.so/${androidId}/libphysics.so.sym`)).toMatchObject({
      kind: 'breakpad',
      platform: 'android',
      debug_id: androidId,
    });
    expect(await byName(`ShopEngine/${iosId}/ShopEngine.sym`)).toMatchObject({
      platform: 'ios',
      debug_id: iosId,
    });

    await t.core.ingest({
      crashes: [
        crash('bp_android', 'android', [
          { function: '??', file: '', address: '0x1044', module: 'libphysics.so', in_app: true },
        ]),
        crash('bp_ios', 'ios', [
          { function: '??', file: '', address: '0x2010', module: 'ShopEngine', in_app: true },
        ]),
      ],
    });
    expect(await crashFrames('bp_android')).toMatchObject([
      { function: 'Physics::step(float)', file: '/src/physics.cpp', line: 12, symbolicated: true },
    ]);
    expect(await crashFrames('bp_ios')).toMatchObject([
      { function: 'Renderer::draw()', file: '/src/render.cpp', line: 42, symbolicated: true },
    ]);
  });

  it('sourcemaps: every *.js.map of a build directory, named by its path there; web frames symbolicated', async () => {
    const bundle = webBundle('app.min.js');
    writeFile(root, 'web/dist/assets/app.min.js', bundle.code);
    writeFile(root, 'web/dist/assets/app.min.js.map', bundle.map);
    const vendor = webBundle('vendor.js');
    writeFile(root, 'web/dist/vendor.js.map', vendor.map.replace('checkout', 'vendor'));
    writeFile(root, 'web/dist/node_modules/dep/index.js.map', '{"not": "searched"}');

    const run = await cli([
      'sourcemaps',
      join(root, 'web/dist'),
      '--url-prefix',
      '~/',
      '--release',
      RELEASE,
      '--dsn',
      t.dsn(),
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toHaveLength(2);
    expect(await byName('~/assets/app.min.js.map')).toMatchObject({
      kind: 'sourcemap',
      platform: 'web',
      module: 'app.min.js',
      sha256: sha256(bundle.map),
    });

    const url = 'https://shop.example/assets/app.min.js';
    await t.core.ingest({
      crashes: [
        crash(
          'web_1',
          'web',
          bundle.frames.map((f) => ({
            function: f.minified,
            file: url,
            line: 1,
            column: f.column,
            in_app: true,
          })),
        ),
      ],
    });
    const frames = await crashFrames('web_1');
    expect(frames?.map((f) => [f.file, f.line, f.symbolicated])).toEqual(
      bundle.frames.map((f) => [f.source, f.line, true]),
    );
  });

  it("react-native: Metro's map composed with Hermes's (android), Metro's alone (ios); both platforms' frames symbolicated", async () => {
    const metro = writeFile(root, 'rn/index.android.bundle.packager.map', JSON.stringify(metroMap()));
    const hermes = writeFile(root, 'rn/index.android.bundle.hbc.map', JSON.stringify(hermesMap()));
    const jsc = writeFile(root, 'rn/main.jsbundle.map', JSON.stringify(metroMap()));
    const android = await cli([
      'react-native',
      '--bundle-map',
      metro,
      '--hermes-map',
      hermes,
      '--platform',
      'android',
      '--release',
      RELEASE,
      '--dsn',
      t.dsn(),
    ]);
    expect(android.code).toBe(0);
    const ios = await cli([
      'react-native',
      '--bundle-map',
      jsc,
      '--platform',
      'ios',
      '--release',
      RELEASE,
      '--dsn',
      t.dsn(),
    ]);
    expect(ios.code).toBe(0);
    expect(await byName('index.android.bundle.map')).toMatchObject({
      kind: 'sourcemap',
      platform: 'android',
      module: 'index.android.bundle',
    });
    expect(await byName('main.jsbundle.map')).toMatchObject({
      kind: 'sourcemap',
      platform: 'ios',
      sha256: sha256(readFileSync(jsc)),
    });

    // Hermes reports line 1 and the bytecode offset; JavaScriptCore a 1-based line and column.
    const hermesFrames = HERMES.map(([offset]) => ({
      function: 'anonymous',
      file: 'index.android.bundle',
      line: 1,
      column: offset,
      in_app: true,
    }));
    const jscFrames = METRO.map((m) => ({
      function: 'n',
      file: 'main.jsbundle',
      line: 1,
      column: m.column + 1,
      in_app: true,
    }));
    await t.core.ingest({
      crashes: [crash('rn_android', 'android', hermesFrames), crash('rn_ios', 'ios', jscFrames)],
    });
    expect((await crashFrames('rn_android'))?.map((f) => [f.file, f.line, f.symbolicated])).toEqual(
      HERMES.map(([, column]) => [expectedAt(column).source, expectedAt(column).line, true]),
    );
    expect((await crashFrames('rn_ios'))?.map((f) => [f.file, f.line, f.symbolicated])).toEqual(
      METRO.map((m) => [m.source, m.line, true]),
    );
  });
});
