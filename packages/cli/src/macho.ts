// Mach-O (iOS/macOS binaries and the DWARF files inside a dSYM): each architecture's LC_UUID, the
// id a crash report names an image by. A fat (universal) file holds one thin Mach-O per
// architecture; each is returned with its byte range so it can be uploaded on its own.

export interface MachOSlice {
  arch: string;
  /** LC_UUID as Apple prints it: 8-4-4-4-12, upper case. */
  uuid: string | null;
  offset: number;
  size: number;
}

const MH_MAGIC = 0xfeedface;
const MH_MAGIC_64 = 0xfeedfacf;
const FAT_MAGIC = 0xcafebabe;
const FAT_MAGIC_64 = 0xcafebabf;
const LC_UUID = 0x1b;
// 0xcafebabe is also a Java class file's magic; a fat file has a handful of architectures, a
// class file has its version (>= 45) there.
const MAX_FAT_ARCHS = 32;

const CPU_ARCH_ABI64 = 0x01000000;
const CPU_ARCH_ABI64_32 = 0x02000000;
const CPU_TYPE_X86 = 7;
const CPU_TYPE_ARM = 12;

export function archName(cputype: number, cpusubtype: number): string {
  const sub = cpusubtype & 0x00ffffff; // the top byte holds capability flags (pointer auth ABI)
  switch (cputype) {
    case CPU_TYPE_X86:
      return 'i386';
    case CPU_TYPE_X86 | CPU_ARCH_ABI64:
      return sub === 8 ? 'x86_64h' : 'x86_64';
    case CPU_TYPE_ARM:
      return ({ 9: 'armv7', 11: 'armv7s', 12: 'armv7k' } as Record<number, string>)[sub] ?? 'arm';
    case CPU_TYPE_ARM | CPU_ARCH_ABI64:
      return sub === 2 ? 'arm64e' : 'arm64';
    case CPU_TYPE_ARM | CPU_ARCH_ABI64_32:
      return 'arm64_32';
    default:
      return `cpu${cputype}`;
  }
}

export function formatUuid(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex').toUpperCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The architectures of a Mach-O file, thin or fat; null when `buf` is not one. */
export function readMachO(buf: Buffer): MachOSlice[] | null {
  if (buf.length < 8) return null;
  const be = buf.readUInt32BE(0);
  if (be === FAT_MAGIC || be === FAT_MAGIC_64) return readFat(buf, be === FAT_MAGIC_64);
  const thin = readThin(buf, 0, buf.length);
  return thin ? [thin] : null;
}

function readFat(buf: Buffer, wide: boolean): MachOSlice[] | null {
  const count = buf.readUInt32BE(4);
  if (count === 0 || count > MAX_FAT_ARCHS) return null;
  const entrySize = wide ? 32 : 20;
  if (buf.length < 8 + count * entrySize) return null;
  const slices: MachOSlice[] = [];
  for (let i = 0; i < count; i++) {
    const at = 8 + i * entrySize;
    const offset = wide ? Number(buf.readBigUInt64BE(at + 8)) : buf.readUInt32BE(at + 8);
    const size = wide ? Number(buf.readBigUInt64BE(at + 16)) : buf.readUInt32BE(at + 12);
    if (offset + size > buf.length) return null;
    const slice = readThin(buf, offset, size);
    if (!slice) return null;
    slices.push(slice);
  }
  return slices;
}

function readThin(buf: Buffer, offset: number, size: number): MachOSlice | null {
  if (size < 28 || offset + size > buf.length) return null;
  let u32: (at: number) => number;
  let is64: boolean;
  const magicLe = buf.readUInt32LE(offset);
  const magicBe = buf.readUInt32BE(offset);
  if (magicLe === MH_MAGIC || magicLe === MH_MAGIC_64) {
    u32 = (at) => buf.readUInt32LE(offset + at);
    is64 = magicLe === MH_MAGIC_64;
  } else if (magicBe === MH_MAGIC || magicBe === MH_MAGIC_64) {
    u32 = (at) => buf.readUInt32BE(offset + at);
    is64 = magicBe === MH_MAGIC_64;
  } else {
    return null;
  }
  const arch = archName(u32(4), u32(8));
  const ncmds = u32(16);
  const sizeofcmds = u32(20);
  let at = is64 ? 32 : 28;
  const end = Math.min(at + sizeofcmds, size);
  let uuid: string | null = null;
  for (let i = 0; i < ncmds && at + 8 <= end; i++) {
    const cmd = u32(at);
    const cmdsize = u32(at + 4);
    if (cmdsize < 8) break; // malformed: would loop in place
    if (cmd === LC_UUID && cmdsize >= 24 && at + 24 <= end) {
      uuid = formatUuid(buf.subarray(offset + at + 8, offset + at + 24));
      break;
    }
    at += cmdsize;
  }
  return { arch, uuid, offset, size };
}
