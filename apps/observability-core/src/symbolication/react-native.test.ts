import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crashGetOutput, type SymbolicatedFrame } from '@svc/tools-crash';
import {
  crashRecord,
  type SymbolicationStack,
  startSymbolicationStack,
} from '../testing/symbolication-stack';
import { REASONS } from './symbolicate';

// React Native crashes read back through crash.get, symbolicated from the bundle map uploaded for
// the release. The fixtures are real: a tiny app bundled by Metro, compiled by hermesc, run by
// hermes (and the JavaScript bundle run by V8); see ../testing/react-native-fixture/generate.mjs.
// Expected places are read from the app's own source text, not from the maps.

const FIXTURE = join(import.meta.dirname, '../testing/react-native-fixture');
const read = (name: string) => readFileSync(join(FIXTURE, name), 'utf8');
const HERMES_MAP = read('index.android.bundle.map');
const METRO_MAP = read('main.jsbundle.map');
const HERMES_STACK = read('hermes.stack.txt');
const V8_STACK = read('v8.stack.txt');

/** The 1-based line of the app's source file that holds `text`. */
function lineOf(file: string, text: string): number {
  const index = read(`app/${file}`)
    .split('\n')
    .findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`${text} is not in ${file}`);
  return index + 1;
}

/** The app's frames, top first: where each function was when the error was thrown. */
const APP_FRAMES = [
  {
    function: 'checkStock',
    file: 'src/stock.js',
    line: lineOf('src/stock.js', "throw new Error('out of stock')"),
  },
  {
    function: 'validateCart',
    file: 'src/checkout.js',
    line: lineOf('src/checkout.js', 'return checkStock('),
  },
  {
    function: 'submitOrder',
    file: 'src/checkout.js',
    line: lineOf('src/checkout.js', 'const ok = validateCart('),
  },
  { function: 'onCheckout', file: 'src/checkout.js', line: lineOf('src/checkout.js', 'return submitOrder(') },
  { function: '<global>', file: 'index.js', line: lineOf('index.js', 'onCheckout({') },
];

interface SentFrame {
  function: string;
  file: string;
  line?: number;
  column?: number;
  in_app: boolean;
}

/**
 * The frames of a stack as the React Native SDK sends them (packages/sdk-react-native's
 * stack-frames.ts): "at fn (location)" (V8, Hermes; "address at " dropped), "fn@location" (JSC),
 * location = file:line:column. `keepAddressAt` keeps Hermes's "address at " as some senders do.
 */
function sentFrames(stack: string, options: { file?: string; keepAddressAt?: boolean } = {}): SentFrame[] {
  const frames: SentFrame[] = [];
  for (const raw of stack.split('\n').map((l) => l.trim())) {
    const v8 = /^at (?:(.+?) \((.*)\)|(.+))$/.exec(raw);
    const jsc = v8 ? null : /^(.*?)@(.*:\d+)$/.exec(raw);
    if (!v8 && !jsc) continue;
    const fn = v8 ? (v8[1] ?? '') : jsc![1]!;
    let where = v8 ? (v8[2] ?? v8[3]!) : jsc![2]!;
    if (!options.keepAddressAt) where = where.replace(/^address at /, '');
    const m = /^(.*):(\d+):(\d+)$/.exec(where);
    if (!m) continue;
    const prefix = m[1]!.startsWith('address at ') ? 'address at ' : '';
    const file = options.file && !m[1]!.startsWith('node:') ? `${prefix}${options.file}` : m[1]!;
    frames.push({
      function: fn,
      file,
      line: Number(m[2]),
      column: Number(m[3]),
      in_app: !file.startsWith('node:'),
    });
  }
  return frames;
}

/** JavaScriptCore writes a frame as "fn@file:line:column"; the positions are V8's (both 1-based). */
function asJsc(stack: string): string {
  return sentFrames(stack)
    .map((f) => `${f.function.replace(/^e\./, '')}@${f.file}:${f.line}:${f.column}`)
    .join('\n');
}

describe('React Native frames in crash.get', () => {
  let stack: SymbolicationStack;
  const sources = (map: string) => (JSON.parse(map) as { sources: string[] }).sources;
  const sourceOf = (map: string, file: string) => sources(map).find((s) => s.endsWith(`/${file}`));

  beforeAll(async () => {
    stack = await startSymbolicationStack('rn_sym');
    const uploads = [
      { kind: 'sourcemap', platform: 'android', name: 'index.android.bundle.map', release: '2.0.0' },
      { kind: 'sourcemap', platform: 'ios', name: 'index.ios.bundle.map', release: '2.0.0' },
      { kind: 'sourcemap', platform: 'ios', name: 'main.jsbundle.map', release: '2.1.0' },
      { kind: 'sourcemap', platform: 'android', name: 'index.android.bundle.map', release: '2.1.0-jsc' },
    ];
    const bodies = [HERMES_MAP, HERMES_MAP, METRO_MAP, METRO_MAP];
    for (const [i, query] of uploads.entries()) {
      const res = await stack.upload(query, bodies[i]!);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ kind: 'sourcemap', platform: query.platform, module: null });
    }
  });
  afterAll(async () => {
    await stack?.close();
  });

  const crashFrames = async (eventId: string): Promise<SymbolicatedFrame[]> => {
    const res = await stack.callTool('crash.get', { event_id: eventId });
    expect(res.status).toBe(200);
    const frames = crashGetOutput.parse(res.body).crash?.symbolicated_frames;
    if (!frames) throw new Error(`${eventId} was not symbolicated`);
    return frames;
  };
  const expectAppFrames = (frames: SymbolicatedFrame[], map: string, sent: SentFrame[]) => {
    expect(frames).toHaveLength(sent.length);
    APP_FRAMES.forEach((want, i) => {
      expect(frames[i]).toEqual({
        ...sent[i],
        function: want.function,
        file: sourceOf(map, want.file),
        line: want.line,
        column: expect.any(Number),
        address: null,
        module: null,
        debug_id: null,
        symbolicated: true,
        reason: null,
      });
    });
  };

  it('maps Hermes bytecode offsets through the composed map (Android), with or without "address at"', async () => {
    const sent = sentFrames(HERMES_STACK);
    // The forms React Native prints: a path the device loaded the bundle from, "address at" kept.
    const onDevice = sentFrames(HERMES_STACK, {
      file: '/data/user/0/com.shop/files/index.android.bundle',
      keepAddressAt: true,
    });
    expect(sent[0]).toMatchObject({ file: 'index.android.bundle', line: 1 });
    expect(onDevice[0]!.file).toBe('address at /data/user/0/com.shop/files/index.android.bundle');
    const res = await stack.ingest({
      crashes: [
        crashRecord('rn_hermes', 'android', '2.0.0', sent),
        crashRecord('rn_hermes_device', 'android', '2.0.0', onDevice),
      ],
    });
    expect(res.status).toBe(200);
    expectAppFrames(await crashFrames('rn_hermes'), HERMES_MAP, sent);
    expectAppFrames(await crashFrames('rn_hermes_device'), HERMES_MAP, onDevice);
    // Below the app: Metro's module system, named by its function maps; the bundle's first
    // statements (Metro's prelude) have no source.
    const runtime = (await crashFrames('rn_hermes')).slice(APP_FRAMES.length);
    const requireJs = sourceOf(HERMES_MAP, 'polyfills/require.js');
    expect(runtime.map((f) => [f.function, f.file, f.symbolicated, f.reason])).toEqual([
      ['loadModuleImplementation', requireJs, true, null],
      ['guardedLoadModule', requireJs, true, null],
      ['metroRequire', requireJs, true, null],
      ['global', 'index.android.bundle', false, REASONS.noMapping],
    ]);
  });

  it('maps the same bytecode on iOS by the bundle name the frames carry', async () => {
    const sent = sentFrames(HERMES_STACK, { file: 'index.ios.bundle' });
    expect(
      (await stack.ingest({ crashes: [crashRecord('rn_hermes_ios', 'iOS', '2.0.0', sent)] })).status,
    ).toBe(200);
    expectAppFrames(await crashFrames('rn_hermes_ios'), HERMES_MAP, sent);
  });

  it("maps JavaScriptCore (iOS) and V8 (Android) frames by line and column through Metro's map", async () => {
    const jsc = sentFrames(asJsc(V8_STACK));
    expect(jsc[0]).toMatchObject({ function: 'checkStock', file: 'main.jsbundle' });
    const v8 = sentFrames(V8_STACK, { file: 'index.android.bundle' });
    const res = await stack.ingest({
      crashes: [crashRecord('rn_jsc', 'ios', '2.1.0', jsc), crashRecord('rn_v8', 'android', '2.1.0-jsc', v8)],
    });
    expect(res.status).toBe(200);
    expectAppFrames(await crashFrames('rn_jsc'), METRO_MAP, jsc);
    expectAppFrames(await crashFrames('rn_v8'), METRO_MAP, v8);
  });

  it('leaves frames of another release, or of no bundle it has a map for, unmapped with a reason', async () => {
    const sent = sentFrames(HERMES_STACK);
    const other = sentFrames(HERMES_STACK, { file: 'other.bundle' });
    const res = await stack.ingest({
      crashes: [
        crashRecord('rn_release', 'android', '9.9.9', sent),
        crashRecord('rn_other', 'android', '2.0.0', other),
      ],
    });
    expect(res.status).toBe(200);
    // No file for 9.9.9: ingest stores nothing; crash.symbolicate explains every frame.
    expect(
      crashGetOutput.parse((await stack.callTool('crash.get', { event_id: 'rn_release' })).body).crash,
    ).toMatchObject({ symbolicated_frames: null });
    const frames = await crashFrames('rn_other');
    expect(frames.map((f) => f.reason)).toEqual(other.map(() => REASONS.noMapForFile));
  });
});
