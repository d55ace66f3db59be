import { parseBreakpad, parseFrameAddress } from './breakpad';

// A symbol file written from records, and lookups expected from the same records by a linear scan.

const funcs = [
  {
    address: 0x1000,
    size: 0x80,
    name: 'Physics::step(float)',
    lines: [
      [0x1000, 0x20, 10, 0],
      [0x1020, 0x30, 12, 0],
      [0x1050, 0x30, 15, 0],
    ],
  },
  { address: 0x2000, size: 0x40, name: 'Renderer::draw()', lines: [[0x2000, 0x20, 42, 1]] },
  { address: 0x4000, size: 0x10, name: 'folded()', lines: [] as number[][] },
] as const;
const publics = [{ address: 0x3000, name: 'game_main' }];
const files = ['/src/game/physics.cpp', '/src/game/render.cpp'];

const text = [
  'MODULE Linux arm64 0123456789ABCDEF0123456789ABCDEF0 libgame.so',
  'INFO CODE_ID 0123',
  ...files.map((f, i) => `FILE ${i} ${f}`),
  ...funcs.flatMap((f) => [
    `FUNC ${f.name === 'folded()' ? 'm ' : ''}${f.address.toString(16)} ${f.size.toString(16)} 0 ${f.name}`,
    ...f.lines.map(([a, s, l, n]) => `${a!.toString(16)} ${s!.toString(16)} ${l} ${n}`),
  ]),
  ...publics.map((p) => `PUBLIC ${p.address.toString(16)} 0 ${p.name}`),
  'STACK CFI INIT 1000 80 .cfa: sp 0 + .ra: lr',
  'not a record at all',
].join('\r\n');

function expected(address: number) {
  const func = funcs.find((f) => f.address <= address && address < f.address + f.size);
  if (func) {
    const rec = func.lines.find(([a, s]) => a! <= address && address < a! + s!);
    return { function: func.name, file: rec ? files[rec[3]!]! : null, line: rec ? rec[2]! : null };
  }
  // PUBLIC: the closest one below, unless a FUNC starts between it and the address.
  const below = publics.filter((p) => p.address <= address).sort((a, b) => b.address - a.address)[0];
  if (!below || funcs.some((f) => f.address > below.address && f.address <= address)) return null;
  return { function: below.name, file: null, line: null };
}

describe('parseBreakpad', () => {
  const symbols = parseBreakpad(text);

  it('reads the MODULE line', () => {
    expect(symbols.module).toEqual({
      os: 'Linux',
      arch: 'arm64',
      debugId: '0123456789ABCDEF0123456789ABCDEF0',
      name: 'libgame.so',
    });
  });

  it.each([
    0x0, 0x10, 0xfff, 0x1000, 0x101f, 0x1020, 0x1049, 0x1050, 0x107f, 0x1080, 0x2000, 0x201f, 0x2020, 0x203f,
    0x2040, 0x3000, 0x3abc, 0x4000, 0x400f, 0x4010, 0x5000,
  ])('maps address %s like a linear scan of the records', (address) => {
    expect(symbols.lookup(address)).toEqual(expected(address));
  });

  it('refuses a file without a MODULE line', () => {
    expect(() => parseBreakpad('FUNC 1000 10 0 f\n')).toThrow(/MODULE/);
  });

  it('parses frame addresses as hex, with or without 0x', () => {
    expect(parseFrameAddress('0x1a2B')).toBe(0x1a2b);
    expect(parseFrameAddress('1a2b')).toBe(0x1a2b);
    expect(parseFrameAddress('0xzz')).toBeNull();
    expect(parseFrameAddress('')).toBeNull();
    expect(parseFrameAddress('0x12345678901234567')).toBeNull();
  });
});
