import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crashGetOutput, type SymbolicatedFrame, symbolListOutput } from '@svc/tools-crash';
import {
  crashRecord,
  type SymbolicationStack,
  startSymbolicationStack,
} from '../testing/symbolication-stack';
import { REASONS, type StoredFrame } from './symbolicate';

// An Android crash's Java/Kotlin frames deobfuscated in crash.get with the R8 mapping uploaded for
// the release (testing/android-fixture/mapping.txt, written as R8 writes one). Each expected frame
// names the mapping line it comes from.

const MAPPING = readFileSync(join(import.meta.dirname, '../testing/android-fixture/mapping.txt'), 'utf8');
const VM = 'com.shop.checkout.CheckoutViewModel';
const ACTIVITY = 'com.shop.checkout.CheckoutActivity';

/** "at a.b.c.a(SourceFile:4)" as an Android SDK sends it: class.method, file, line, no column. */
function javaFrame(text: string, inApp = true): StoredFrame {
  const m = /^at (\S+)\(([^:)]*)(?::(\d+))?\)$/.exec(text);
  if (!m) throw new Error(`not a Java frame: ${text}`);
  return { function: m[1]!, file: m[2]!, ...(m[3] ? { line: Number(m[3]) } : {}), in_app: inApp };
}

const FRAMES: StoredFrame[] = [
  javaFrame('at a.b.d.a(SourceFile:4)'),
  javaFrame('at a.b.c.a(SourceFile:4)'),
  javaFrame(`at ${ACTIVITY}.a(SourceFile:2)`),
  javaFrame('at android.view.View.performClick(View.java:7448)', false),
  { function: '??', file: '', address: '0x1f00', module: 'libart.so', in_app: false },
];

describe('Android R8/ProGuard mappings in crash.get', () => {
  let stack: SymbolicationStack;
  beforeAll(async () => {
    stack = await startSymbolicationStack('pg_sym');
  });
  afterAll(async () => {
    await stack?.close();
  });

  const frames = async (eventId: string): Promise<SymbolicatedFrame[] | null> => {
    const res = await stack.callTool('crash.get', { event_id: eventId });
    expect(res.status).toBe(200);
    return crashGetOutput.parse(res.body).crash?.symbolicated_frames ?? null;
  };

  it('takes a mapping for android only, names its pg_map_id as debug id, refuses one without classes', async () => {
    const query = { kind: 'proguard', platform: 'android', name: 'mapping.txt', release: '3.0.0' };
    const res = await stack.upload(query, MAPPING);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'proguard',
      platform: 'android',
      debug_id: '8F3A2C1',
      module: null,
    });
    expect((await stack.upload({ ...query, platform: 'ios' }, MAPPING)).status).toBe(400);
    const empty = await stack.upload(query, '# compiler: R8\n# pg_map_id: 1\n');
    expect(empty.status).toBe(400);
    expect(empty.body.details).toEqual([{ parameter: 'body', reason: expect.stringMatching(/class lines/) }]);
    const list = symbolListOutput.parse((await stack.callTool('symbol.list', { platform: 'android' })).body);
    expect(list.items.map((i) => [i.name, i.kind, i.release, i.debug_id, i.module, i.usable])).toEqual([
      ['mapping.txt', 'proguard', '3.0.0', '8F3A2C1', null, true],
    ]);
  });

  it('deobfuscates class, method, file and line, expanding inlined frames; the signature uses the original names', async () => {
    const res = await stack.ingest({
      crashes: [
        crashRecord('pg_1', 'android', '3.0.0', FRAMES),
        crashRecord('pg_other', 'android', '3.0.1', FRAMES),
      ],
    });
    expect(res.status).toBe(200);
    const raw = (f: StoredFrame) => ({
      function: f.function,
      file: f.file,
      line: f.line ?? null,
      column: null,
      in_app: f.in_app === true,
      address: f.address ?? null,
      module: f.module ?? null,
      debug_id: null,
    });
    const mapped = (f: StoredFrame, fn: string, file: string, line: number) => ({
      ...raw(f),
      function: fn,
      file,
      line,
      symbolicated: true,
      reason: null,
    });
    const [checker, viewModel, activity, view, native] = FRAMES as [
      StoredFrame,
      StoredFrame,
      StoredFrame,
      StoredFrame,
      StoredFrame,
    ];
    const expected = [
      mapped(checker, 'com.shop.checkout.StockChecker.check', 'StockChecker.java', 23), // 4:5:...:23:24
      mapped(viewModel, 'com.shop.checkout.StockChecker.check', 'StockChecker.java', 23), // 4:4 ... :23:23
      mapped(viewModel, `${VM}.validateCart`, 'CheckoutViewModel.kt', 61), //           4:4 ... :61
      mapped(viewModel, `${VM}.submitOrder`, 'CheckoutViewModel.kt', 53), //            4:4 ... :53
      mapped(activity, `${VM}.submitOrder`, 'CheckoutViewModel.kt', 52), //             2:2 ... :52:52
      mapped(activity, `${ACTIVITY}.onCreate$lambda$0`, 'CheckoutActivity.kt', 39), //   2:2 ... :39
      { ...raw(view), symbolicated: false, reason: REASONS.noProguardFile },
      { ...raw(native), symbolicated: false, reason: REASONS.noModuleFile },
    ];
    expect(await frames('pg_1')).toEqual(expected);
    const signature = createHash('sha256')
      .update(['Error', ...expected.slice(0, 3).map((f) => f.function)].join('\n'), 'utf8')
      .digest('hex')
      .slice(0, 16);
    const stored = await stack.ch.query<{ signature: string }>(
      "SELECT signature FROM crashes WHERE event_id = 'pg_1'",
      {},
    );
    expect(stored[0]?.signature).toBe(signature);
    // Another release has no mapping: nothing to map at ingest.
    expect(await frames('pg_other')).toBeNull();
  });

  it('explains a method whose line the mapping cannot place', async () => {
    const ambiguous = javaFrame('at a.b.c.b(Unknown Source)');
    const res = await stack.ingest({ crashes: [crashRecord('pg_2', 'android', '3.0.0', [ambiguous])] });
    expect(res.status).toBe(200);
    expect(await frames('pg_2')).toEqual([
      expect.objectContaining({ function: 'a.b.c.b', symbolicated: false, reason: REASONS.noMethodLine }),
    ]);
  });
});
