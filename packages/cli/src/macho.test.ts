import { readMachO } from './macho';
import { CPU, fatMachO, thinMachO, uuidText } from './testing/mach-o-files';

const uuid = (byte: number) => Buffer.alloc(16, byte).fill(byte + 1, 8);

describe('readMachO', () => {
  it('reads the architecture and LC_UUID of a thin 64-bit little-endian file', () => {
    const bytes = thinMachO({ cputype: CPU.arm64[0], cpusubtype: CPU.arm64[1], uuid: uuid(0xa0) });
    expect(readMachO(bytes)).toEqual([
      { arch: 'arm64', uuid: uuidText(uuid(0xa0)), offset: 0, size: bytes.length },
    ]);
  });

  it('reads 32-bit and big-endian headers', () => {
    const armv7 = thinMachO({
      cputype: CPU.armv7[0],
      cpusubtype: CPU.armv7[1],
      uuid: uuid(0x10),
      is64: false,
      bigEndian: true,
    });
    expect(readMachO(armv7)?.map((s) => [s.arch, s.uuid])).toEqual([['armv7', uuidText(uuid(0x10))]]);
  });

  it('splits a fat file into its slices, each with its own UUID and byte range', () => {
    const a = thinMachO({
      cputype: CPU.arm64[0],
      cpusubtype: CPU.arm64[1],
      uuid: uuid(0x01),
      payload: 'arm',
    });
    const b = thinMachO({
      cputype: CPU.x86_64[0],
      cpusubtype: CPU.x86_64[1],
      uuid: uuid(0x02),
      payload: 'x86',
    });
    const fat = fatMachO([
      { cputype: CPU.arm64[0], cpusubtype: CPU.arm64[1], bytes: a },
      { cputype: CPU.x86_64[0], cpusubtype: CPU.x86_64[1], bytes: b },
    ]);
    const slices = readMachO(fat)!;
    expect(slices.map((s) => [s.arch, s.uuid])).toEqual([
      ['arm64', uuidText(uuid(0x01))],
      ['x86_64', uuidText(uuid(0x02))],
    ]);
    expect(fat.subarray(slices[0]!.offset, slices[0]!.offset + slices[0]!.size)).toEqual(a);
    expect(fat.subarray(slices[1]!.offset, slices[1]!.offset + slices[1]!.size)).toEqual(b);
  });

  it('names arm64e by its subtype, ignoring the capability bits', () => {
    const bytes = thinMachO({ cputype: CPU.arm64e[0], cpusubtype: 0x80000002, uuid: uuid(3) });
    expect(readMachO(bytes)?.[0]?.arch).toBe('arm64e');
  });

  it('answers a slice without LC_UUID with a null uuid, and null for other files', () => {
    expect(readMachO(thinMachO({ cputype: CPU.arm64[0], cpusubtype: 0, uuid: null }))?.[0]?.uuid).toBeNull();
    // A Java class file starts with 0xcafebabe too; its "architecture count" is a version number.
    const javaClass = Buffer.from('cafebabe00000041000000000000000000000000', 'hex');
    expect(readMachO(javaClass)).toBeNull();
    expect(readMachO(Buffer.from('\x7fELF not a mach-o file', 'latin1'))).toBeNull();
    expect(readMachO(Buffer.alloc(3))).toBeNull();
  });
});
