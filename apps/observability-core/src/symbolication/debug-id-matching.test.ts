import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crashGetOutput } from '@svc/tools-crash';
import {
  crashRecord,
  type SymbolicationStack,
  startSymbolicationStack,
} from '../testing/symbolication-stack';
import { breakpadIdOf, normalizeDebugId } from './debug-ids';
import { REASONS } from './symbolicate';

// A native frame that names its module's build (`debug_id`) is symbolicated only from a file of
// that build: two builds (or ABIs, or slices) of one library share a module name, and the other
// build's symbols would name the wrong functions. Fixtures: testing/native-fixture/generate.sh
// (libgame.so and libgame-b.so: gcc builds of game.c and game-b.c, build ids from llvm-readelf,
// functions from nm; Shop: a dSYM with its LC_UUID from llvm-dwarfdump).

const FIXTURE = join(import.meta.dirname, '../testing/native-fixture');
const bytes = (name: string) => readFileSync(join(FIXTURE, name));
const text = (name: string) => readFileSync(join(FIXTURE, name), 'utf8').trim();

interface Fn {
  address: number;
  size: number;
  name: string;
}
/** nm -S lines "<address> <size> <type> <name>" of the function symbols. */
const nmFunctions = (name: string): Fn[] =>
  text(name)
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map((f) => ({ address: Number.parseInt(f[0]!, 16), size: Number.parseInt(f[1]!, 16), name: f[3]! }));
const functionAt = (fns: Fn[], address: number) =>
  fns.find((f) => address >= f.address && address < f.address + f.size)?.name;

const A = { id: text('libgame.so.id.txt'), fns: nmFunctions('libgame.so.nm.txt') };
const B = { id: text('libgame-b.so.id.txt'), fns: nmFunctions('libgame-b.so.nm.txt') };
/** An address inside a function of build B that lies in another function in build A. */
const ADDRESS = (() => {
  for (const fn of B.fns)
    for (let a = fn.address; a < fn.address + fn.size; a++) {
      const inA = functionAt(A.fns, a);
      if (inA !== undefined && inA !== fn.name) return a;
    }
  throw new Error('the two builds share their layout: change game-b.c');
})();
const hex = (n: number) => `0x${n.toString(16)}`;

/** The GUID form of a build id as Breakpad's FileID::ConvertIdentifierToUUIDString writes it. */
function dumpSymsId(buildId: string): string {
  const b = Buffer.alloc(16);
  Buffer.from(buildId, 'hex').copy(b, 0, 0, 16);
  const guid = Buffer.concat([
    Buffer.from([b[3]!, b[2]!, b[1]!, b[0]!, b[5]!, b[4]!, b[7]!, b[6]!]),
    b.subarray(8),
  ]);
  return `${guid.toString('hex').toUpperCase()}0`;
}
/** A Breakpad symbol file of a library's functions (no line records: names are what is checked). */
const breakpadFile = (os: string, id: string, module: string, fns: Fn[]) =>
  [
    `MODULE ${os} arm64 ${id} ${module}`,
    ...fns.map((f) => `FUNC ${f.address.toString(16)} ${f.size.toString(16)} 0 ${f.name}`),
  ].join('\n');
/** A UUID written as a device prints it: lower case here, dashes kept. */
const dashedLower = (id: string) => id.toLowerCase();

describe('debug ids', () => {
  it('Breakpad ids: a Mach-O UUID with age 0; an ELF build id as a byte-swapped GUID with age 0', () => {
    expect(breakpadIdOf(text('Shop.id.txt'), 'ios')).toBe(`${normalizeDebugId(text('Shop.id.txt'))}0`);
    expect(breakpadIdOf(A.id, 'android')).toBe(dumpSymsId(A.id));
    expect(breakpadIdOf('5608b25a5e44926aba2f8f095a2154aeb7480494', 'android')).toBe(
      '5AB20856445E6A92BA2F8F095A2154AE0',
    );
    // A short build id (--build-id=0x...) is zero-padded to 16 bytes, as Breakpad does.
    expect(breakpadIdOf('0102030405060708', 'android')).toBe('04030201060508070000000000000000' + '0');
    expect(normalizeDebugId('8a1f6c2e-3b4d-4e5f-9a0b-1c2d3e4f5a6b')).toBe('8A1F6C2E3B4D4E5F9A0B1C2D3E4F5A6B');
  });
});

describe('native frames with a debug_id in crash.get', () => {
  let stack: SymbolicationStack;
  beforeAll(async () => {
    stack = await startSymbolicationStack('dbg_ids');
  });
  afterAll(async () => {
    await stack?.close();
  });
  const frames = async (id: string) =>
    crashGetOutput.parse((await stack.callTool('crash.get', { event_id: id })).body).crash
      ?.symbolicated_frames;
  const nativeFrame = (address: number, extra: Record<string, string>) => ({
    function: '??',
    file: '',
    address: hex(address),
    module: '/data/app/com.game/lib/arm64/libgame.so',
    in_app: true,
    ...extra,
  });

  it('two builds of one .so in a release: each frame maps from its own build, never the newest of the name', async () => {
    // Build B first, build A last: by module name alone the newest (A) would be taken.
    for (const [name, file] of [
      ['arm64-v8a/libgame.so', 'libgame-b.so'],
      ['x86_64/libgame.so', 'libgame.so'],
    ] as const) {
      const res = await stack.upload({ kind: 'so', platform: 'android', name, release: '2.0' }, bytes(file));
      expect(res.status).toBe(201);
    }
    const res = await stack.ingest({
      crashes: [
        crashRecord('so_ids', 'android', '2.0', [
          nativeFrame(ADDRESS, { debug_id: B.id }),
          nativeFrame(ADDRESS, { debug_id: B.id.toUpperCase() }),
          nativeFrame(ADDRESS, { debug_id: A.id }),
          nativeFrame(ADDRESS, { debug_id: 'deadbeef'.repeat(5) }),
          nativeFrame(ADDRESS, {}),
        ]),
      ],
    });
    expect(res.status).toBe(200);
    expect((await frames('so_ids'))?.map((f) => [f.function, f.symbolicated, f.reason, f.debug_id])).toEqual([
      [functionAt(B.fns, ADDRESS), true, null, B.id],
      [functionAt(B.fns, ADDRESS), true, null, B.id.toUpperCase()],
      [functionAt(A.fns, ADDRESS), true, null, A.id],
      ['??', false, REASONS.noDebugIdFile, 'deadbeef'.repeat(5)],
      // No id: the module-name rule of before (the newest upload of the release).
      [functionAt(A.fns, ADDRESS), true, null, null],
    ]);
  });

  it('a Breakpad file answers to the ELF build id it was dumped from, and a .so to its Breakpad id', async () => {
    // Breakpad file of build A (preferred by module name: it has lines), binary of build B.
    const sym = breakpadFile('Linux', dumpSymsId(A.id), 'libgame.so', A.fns);
    expect(
      (
        await stack.upload(
          { kind: 'breakpad', platform: 'android', name: 'libgame.sym', release: '3.0' },
          sym,
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await stack.upload(
          { kind: 'so', platform: 'android', name: 'libgame.so', release: '3.0' },
          bytes('libgame-b.so'),
        )
      ).status,
    ).toBe(201);
    const res = await stack.ingest({
      crashes: [
        crashRecord('bp_ids', 'android', '3.0', [
          nativeFrame(ADDRESS, { debug_id: B.id }),
          nativeFrame(ADDRESS, { debug_id: dumpSymsId(B.id) }),
          nativeFrame(ADDRESS, { debug_id: A.id }),
        ]),
      ],
    });
    expect(res.status).toBe(200);
    expect((await frames('bp_ids'))?.map((f) => [f.function, f.symbolicated])).toEqual([
      [functionAt(B.fns, ADDRESS), true],
      [functionAt(B.fns, ADDRESS), true],
      [functionAt(A.fns, ADDRESS), true],
    ]);
  });

  it('a dSYM by its UUID (dashes, any case) beside a Breakpad file of another build of the binary', async () => {
    const uuid = text('Shop.id.txt');
    const other = '11111111-2222-3333-4444-555555555555';
    // nm of the dSYM: module-relative addresses are the symbol's minus __TEXT's vmaddr.
    const shop = text('Shop.nm.txt')
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .map((f) => ({ address: Number.parseInt(f[0]!, 16) - 0x1_0000_0000, name: f[2]!.replace(/^_/, '') }));
    const stale = shop.map((f) => ({ address: f.address, size: 0x1c, name: `stale_${f.name}` }));
    expect(
      (await stack.upload({ kind: 'dsym', platform: 'ios', name: 'Shop', release: '4.0' }, bytes('Shop')))
        .status,
    ).toBe(201);
    const sym = breakpadFile('iOS', `${normalizeDebugId(other)}0`, 'Shop', stale);
    expect(
      (await stack.upload({ kind: 'breakpad', platform: 'ios', name: 'Shop.sym', release: '4.0' }, sym))
        .status,
    ).toBe(201);
    const at = shop[1]!.address + 4;
    const frame = (debug_id: string) => ({
      function: '0x1',
      file: '',
      address: hex(at),
      module: 'Shop',
      in_app: true,
      debug_id,
    });
    const res = await stack.ingest({
      crashes: [
        crashRecord('ios_ids', 'ios', '4.0', [
          frame(dashedLower(uuid)),
          frame(`${normalizeDebugId(uuid)}0`),
          frame(other.toUpperCase()),
        ]),
      ],
    });
    expect(res.status).toBe(200);
    expect((await frames('ios_ids'))?.map((f) => [f.function, f.symbolicated])).toEqual([
      [shop[1]!.name, true],
      [shop[1]!.name, true],
      [`stale_${shop[1]!.name}`, true],
    ]);
  });

  it('refuses a debug_id that is no hex, naming the field', async () => {
    const res = await stack.ingest({
      crashes: [crashRecord('bad_id', 'android', '2.0', [nativeFrame(0x10, { debug_id: 'build-xyz' })])],
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('debug_id');
  });
});
