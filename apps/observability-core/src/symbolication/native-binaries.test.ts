import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crashGetOutput, symbolListOutput } from '@svc/tools-crash';
import {
  crashRecord,
  type SymbolicationStack,
  startSymbolicationStack,
} from '../testing/symbolication-stack';
import { parseElf } from './elf';
import { parseMachO } from './macho';
import { REASONS } from './symbolicate';

// Raw iOS dSYMs (Mach-O) and Android NDK libraries (ELF) name native frames from their symbol
// tables. Fixtures and the expected answers (nm, llvm-readelf, llvm-dwarfdump output) come from
// testing/native-fixture/generate.sh.

const FIXTURE = join(import.meta.dirname, '../testing/native-fixture');
const bytes = (name: string) => readFileSync(join(FIXTURE, name));
const text = (name: string) => readFileSync(join(FIXTURE, name), 'utf8').trim();

interface Symbol {
  address: number;
  size: number | null;
  name: string;
}
/** nm lines: "<address> [<size>] <type> <name>", sorted by address. */
function nmSymbols(name: string): Symbol[] {
  return text(name)
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map((f) => ({
      address: Number.parseInt(f[0]!, 16),
      size: f.length === 4 ? Number.parseInt(f[1]!, 16) : null,
      name: f[f.length - 1]!.replace(/^_/, ''),
    }))
    .sort((a, b) => a.address - b.address);
}
const SO = nmSymbols('libgame.so.nm.txt');
const DSYM = nmSymbols('Shop.nm.txt');
const TEXT_VMADDR = 0x1_0000_0000; // __TEXT of an iOS app (Shop.dsym.yaml)
const TEXT_END = 0x1_0000_4000 + 124; // __text's addr + size (Shop.dsym.yaml)

describe('ELF and Mach-O symbol tables', () => {
  it('reads an NDK library: build id and every function by its range', () => {
    const elf = parseElf(bytes('libgame.so'));
    expect(elf.buildId).toBe(text('libgame.so.id.txt').toUpperCase());
    for (const s of SO) {
      expect(elf.lookup(s.address)).toEqual({ function: s.name });
      expect(elf.lookup(s.address + s.size! - 1)).toEqual({ function: s.name });
    }
    const last = SO[SO.length - 1]!;
    expect(elf.lookup(last.address + last.size!)?.function).not.toBe(last.name);
  });

  it('reads a dSYM: UUID, functions up to the next one, __text its end; a universal file at arm64', () => {
    for (const file of ['Shop', 'Shop-universal']) {
      const macho = parseMachO(bytes(file));
      expect(macho.uuid).toBe(text('Shop.id.txt'));
      DSYM.forEach((s, i) => {
        const end = DSYM[i + 1]?.address ?? TEXT_END;
        expect(macho.lookup(s.address - TEXT_VMADDR)).toEqual({ function: s.name });
        expect(macho.lookup(end - 1 - TEXT_VMADDR)).toEqual({ function: s.name });
      });
      expect(macho.lookup(TEXT_END - TEXT_VMADDR)).toBeNull();
    }
  });

  it('refuses what is not one', () => {
    expect(() => parseElf(Buffer.from('not an elf file at all, not at all, no no no no no no'))).toThrow();
    expect(() => parseMachO(bytes('libgame.so'))).toThrow();
  });
});

describe('dSYM and .so files in crash.get', () => {
  let stack: SymbolicationStack;
  beforeAll(async () => {
    stack = await startSymbolicationStack('bin_sym');
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('are uploaded with their own ids, listed usable; a zipped dSYM is stored only', async () => {
    const dsym = await stack.upload(
      { kind: 'dsym', platform: 'ios', name: 'Shop', release: '4.0' },
      bytes('Shop'),
    );
    expect(dsym.status).toBe(201);
    expect(dsym.body).toMatchObject({ debug_id: text('Shop.id.txt'), module: 'Shop' });
    const so = await stack.upload(
      { kind: 'so', platform: 'android', name: 'libgame.so' },
      bytes('libgame.so'),
    );
    expect(so.status).toBe(201);
    expect(so.body).toMatchObject({
      debug_id: text('libgame.so.id.txt').toUpperCase(),
      module: 'libgame.so',
    });
    const zip = await stack.upload(
      { kind: 'dsym', platform: 'ios', name: 'Other.app.dSYM.zip', release: '4.0' },
      Buffer.from('PK\u0003\u0004 a zip'),
    );
    expect(zip.status).toBe(201);
    // Claims to be a binary (the magic) but cannot be read: refused.
    const broken = Buffer.concat([bytes('libgame.so').subarray(0, 64)]);
    expect(
      (await stack.upload({ kind: 'so', platform: 'android', name: 'libbroken.so' }, broken)).status,
    ).toBe(400);
    const list = symbolListOutput.parse((await stack.callTool('symbol.list', {})).body);
    expect(list.items.map((i) => [i.name, i.usable])).toEqual([
      ['Other.app.dSYM.zip', false],
      ['libgame.so', true],
      ['Shop', true],
    ]);
  });

  it('name native frames by module and module-relative address', async () => {
    const [physics, update] = DSYM as [Symbol, Symbol];
    const ios = [
      {
        function: '0x1',
        file: '',
        address: `0x${(physics.address - TEXT_VMADDR + 8).toString(16)}`,
        module: 'Shop',
        in_app: true,
      },
      {
        function: '0x2',
        file: '',
        address: (update.address - TEXT_VMADDR).toString(16),
        module: '/var/containers/Bundle/Application/X/Shop.app/Shop',
        in_app: true,
      },
      { function: '0x3', file: '', address: '0x10', module: 'UIKitCore', in_app: false },
    ];
    const gameLoop = SO.find((s) => s.name === 'game_loop')!;
    const android = [
      {
        function: '??',
        file: '',
        address: `0x${(gameLoop.address + 4).toString(16)}`,
        module: '/data/app/com.game/lib/arm64/libgame.so',
        in_app: true,
      },
      { function: '??', file: '', address: '0x9000000', module: 'libgame.so', in_app: true },
    ];
    const res = await stack.ingest({
      crashes: [
        crashRecord('bin_ios', 'ios', '4.0', ios),
        crashRecord('bin_android', 'android', '1.0', android),
      ],
    });
    expect(res.status).toBe(200);
    const frames = async (id: string) =>
      crashGetOutput.parse((await stack.callTool('crash.get', { event_id: id })).body).crash
        ?.symbolicated_frames;
    expect((await frames('bin_ios'))?.map((f) => [f.function, f.symbolicated, f.reason])).toEqual([
      [physics.name, true, null],
      [update.name, true, null],
      ['0x3', false, REASONS.noModuleFile],
    ]);
    expect((await frames('bin_android'))?.map((f) => [f.function, f.symbolicated, f.reason])).toEqual([
      ['game_loop', true, null],
      ['??', false, REASONS.noBinaryFunction],
    ]);
  });
});
