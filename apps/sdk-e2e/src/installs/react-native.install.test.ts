import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STACK_SETUP_TIMEOUT_MS } from '@svc/standalone/testing';
import { startTestCore, type TestCore } from '../testing/core';
import { createApp, outsideEnv, packed, runCommand, type ThrowawayApp } from './testing';

// A tiny React Native app outside the repository (react-native-app/, copied to a temp dir) with
// @svc/sdk-react-native and @svc/cli installed by npm from their tarballs, built as React Native
// release builds. Android with Hermes: Metro bundles it with React Native's own config (the
// `react-native` export condition), hermesc compiles the bundle to bytecode, metro-source-map
// composes the two maps; the bytecode runs in Hermes (the `hermes` command line of
// hermes-engine-cli). iOS with JavaScriptCore: Metro's bundle and map; the JavaScript runs in a
// fresh V8 context, an engine that names frames by the bundle's line and column as JavaScriptCore
// does. The CLI uploads each map for the release. The app's own code crashes, the SDK writes the
// crash to storage and cannot send it (no network on these phones), the app dies printing its
// storage; the next start (the same SDK on Node's platform over that storage) sends it to a real
// core, and crash.get reads the frames back with the app's source file, line and function.
//
// Only the native side is played (react-native-app/native/: React Native's native modules,
// AsyncStorage's database, the random source); the JavaScript is the app's, the SDK's and
// React Native's toolchain's. Expected lines are read from the app's source.

const RELEASE = '2.4.0';
const APP = fileURLToPath(new URL('./react-native-app/', import.meta.url));
/** The build tools a React Native 0.86 app has (the versions react-native 0.86.3 depends on). */
const TOOLCHAIN = {
  '@react-native/metro-config': '0.86.3',
  metro: '0.84.6',
  'metro-source-map': '0.84.6',
  '@babel/runtime': '^7.25.0',
  // hermesc and hermes for linux (React Native's hermes-compiler ships hermesc alone, no engine).
  'hermes-engine-cli': '0.12.0',
};
const HERMES = join('node_modules', 'hermes-engine-cli', 'linux64-bin', 'hermes');

interface Frame {
  function: string;
  file: string;
  line: number | null;
  symbolicated: boolean;
}

/** Every file of react-native-app/, path relative to it -> content. */
function appFiles(dir = APP): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(files, appFiles(path));
    else files[relative(APP, path)] = readFileSync(path, 'utf8');
  }
  return files;
}

/** The 1-based line of the app's source file that holds `text`. */
function lineOf(file: string, text: string): number {
  const index = readFileSync(join(APP, file), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text));
  if (index < 0) throw new Error(`${text} is not in ${file}`);
  return index + 1;
}

/** The file an `exports` entry names under these conditions (nested condition objects followed). */
function targetOf(entry: unknown, conditions: string[]): string | undefined {
  if (typeof entry === 'string' || entry === undefined) return entry;
  const branches = entry as Record<string, unknown>;
  const taken = conditions.find((c) => c in branches);
  return taken ? targetOf(branches[taken], conditions) : undefined;
}

/** What the app printed as it died: its crash's stack and its storage. */
function lastWords(stdout: string): { stack: string; storage: Record<string, Record<string, string>> } {
  const said = (tag: string) => {
    const line = stdout.split('\n').find((l) => l.startsWith(`${tag} `));
    if (!line) throw new Error(`the app did not print ${tag}:\n${stdout}`);
    return JSON.parse(line.slice(tag.length + 1));
  };
  return { stack: said('SVC_CRASH'), storage: said('SVC_STORAGE') };
}

let core: TestCore;
let app: ThrowawayApp;

beforeAll(async () => {
  [core, app] = await Promise.all([
    startTestCore('rn_install'),
    createApp({
      name: 'rn-shop',
      packages: ['@svc/sdk-react-native', '@svc/cli'],
      dependencies: {
        'react-native': 'file:native/react-native',
        '@react-native-async-storage/async-storage': 'file:native/async-storage',
        'react-native-get-random-values': 'file:native/get-random-values',
      },
      devDependencies: TOOLCHAIN,
      files: appFiles(),
    }),
  ]);
  // The app's configuration, as an app keeps it in its source: baked into the bundle.
  app.write(
    'src/config.js',
    `export const DSN = ${JSON.stringify(core.dsn())};\nexport const RELEASE = ${JSON.stringify(RELEASE)};\n`,
  );
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await app?.remove();
  await core?.close();
});

/** svc-cli as the app's pipeline runs it after a build. */
const svcCli = (...args: string[]) =>
  app.run(process.execPath, [join('node_modules', '.bin', 'svc-cli'), ...args], { SVC_DSN: core.dsn() });

/**
 * The app's crash as the phone kept it, sent by the app's next start; then the crash as crash.get
 * reads it back (files relative to the app).
 */
async function crashAfterNextStart(
  storage: Record<string, Record<string, string>>,
  name: string,
): Promise<{ app_version: string; platform: string; frames: Frame[] }> {
  const crashes = Object.entries(storage['svc-sdk'] ?? {})
    .filter(([key]) => key.startsWith('svc.outbox.'))
    .flatMap(
      ([, value]) =>
        (JSON.parse(JSON.parse(value).body) as { crashes?: { event_id: string }[] }).crashes ?? [],
    );
  expect(crashes).toHaveLength(1);

  app.write(`build/${name}-storage.json`, JSON.stringify(storage));
  const next = await app.run(process.execPath, [
    'scripts/next-start.mjs',
    `build/${name}-storage.json`,
    `build/${name}-state`,
    core.dsn(),
    RELEASE,
  ]);
  expect(JSON.parse(next.stdout.trim().split('\n').at(-1)!)).toMatchObject({
    stats: { reportsPending: 0, reportsDropped: 0 },
    errors: [],
  });

  const got = await core.tool<{
    crash: { app_version: string; platform: string; symbolicated_frames: Frame[] | null } | null;
  }>('crash.get', { event_id: crashes[0]!.event_id });
  return {
    app_version: got.crash?.app_version ?? '',
    platform: got.crash?.platform ?? '',
    frames: (got.crash?.symbolicated_frames ?? []).map((f) => ({
      ...f,
      file: f.file.replace(`${app.dir}/`, ''),
    })),
  };
}

const inSource = (file: string, text: string) => [file, lineOf(file, text), true];
/** The app's own frames, top first: the arrow inside reduce, totalOf, checkout, the button's handler. */
const APP_FRAMES = () => [
  inSource('src/cart.js', 'item.quantity.count'),
  inSource('src/cart.js', 'item.quantity.count'),
  inSource('src/cart.js', 'const total = totalOf(cart)'),
  inSource('index.js', '__nativeHost.onPress ='),
];
const APP_FUNCTIONS = ['totalOf', 'checkout', 'globalThis.__nativeHost.onPress'];
const appsOwn = (frames: Frame[]) => frames.filter((f) => f.file === 'src/cart.js' || f.file === 'index.js');

it("a Hermes release build's crash in the app's code reads back from crash.get with the app's file, line and function", async () => {
  await app.run(process.execPath, ['scripts/build-android.js']);

  // Metro took the SDK's file that its `react-native` export condition names (for an import).
  const exports = packed('@svc/sdk-react-native').manifest.exports as Record<string, Record<string, unknown>>;
  const entry = targetOf(exports['.']!['react-native'], ['import', 'default']);
  expect(entry).toMatch(/^\.\/dist\//);
  const metroMap = JSON.parse(
    readFileSync(join(app.dir, 'build/metro/index.android.bundle.packager.map'), 'utf8'),
  );
  const sources = (metroMap.sources as string[]).map((s) => relative(app.dir, s));
  expect(sources).toContain(join('node_modules/@svc/sdk-react-native', entry as string));
  expect(sources.filter((s) => s.startsWith('node_modules/@svc/sdk-react-native/'))).toHaveLength(1);

  // The composed map for the release, uploaded as the app's pipeline would after the build.
  await svcCli(
    'react-native',
    '--platform',
    'android',
    '--bundle-map',
    'build/index.android.bundle.map',
    '--release',
    RELEASE,
  );

  // The phone: Hermes runs the bytecode (React Native's Hermes runs promise jobs as microtasks).
  // Run from build/, so frames name the bundle as a phone does (its file name, no folder).
  const run = await runCommand(join(app.dir, HERMES), ['-Xmicrotask-queue', '-b', 'index.android.bundle'], {
    cwd: join(app.dir, 'build'),
    env: outsideEnv(),
    what: 'the app in Hermes',
  });
  const { stack, storage } = lastWords(run.stdout);
  expect(stack).toMatch(/^TypeError: .*count/);
  expect(stack).toMatch(/at \S+ \(address at index\.android\.bundle:1:\d+\)/);

  const crash = await crashAfterNextStart(storage, 'android');
  expect([crash.app_version, crash.platform]).toEqual([RELEASE, 'android']);
  // Top first: the arrow inside reduce, reduce itself (native), then the app's callers.
  expect(crash.frames.slice(0, 2).map((f) => [f.file, f.line, f.symbolicated])).toEqual([
    APP_FRAMES()[0],
    ['native', null, false],
  ]);
  expect(appsOwn(crash.frames).map((f) => [f.file, f.line, f.symbolicated])).toEqual(APP_FRAMES());
  expect(
    appsOwn(crash.frames)
      .slice(1)
      .map((f) => f.function),
  ).toEqual(APP_FUNCTIONS);
});

it("a JavaScriptCore build's crash (frames by the bundle's line and column) reads back with the app's file, line and function", async () => {
  await app.run(process.execPath, ['scripts/build-ios.js']);
  // Metro's map alone: the engine runs the bundle's JavaScript as it is.
  await svcCli(
    'react-native',
    '--platform',
    'ios',
    '--bundle-map',
    'build/ios/main.jsbundle.map',
    '--release',
    RELEASE,
  );

  const run = await app.run(process.execPath, ['scripts/run-in-v8.cjs', 'build/ios/main.jsbundle']);
  const { stack, storage } = lastWords(run.stdout);
  expect(stack).toMatch(/^TypeError: .*count/);
  expect(stack).toMatch(/at \S+ \(main\.jsbundle:\d+:\d+\)/);

  const crash = await crashAfterNextStart(storage, 'ios');
  expect([crash.app_version, crash.platform]).toEqual([RELEASE, 'ios']);
  expect(crash.frames[0]).toMatchObject({
    file: 'src/cart.js',
    line: APP_FRAMES()[0]![1],
    symbolicated: true,
  });
  expect(appsOwn(crash.frames).map((f) => [f.file, f.line, f.symbolicated])).toEqual(APP_FRAMES());
  expect(
    appsOwn(crash.frames)
      .slice(1)
      .map((f) => f.function),
  ).toEqual(APP_FUNCTIONS);
});
