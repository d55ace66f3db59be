// ELF (Android NDK shared libraries): the GNU build id, the id a tombstone names a library by
// ("BuildId: ..."), read from the .note.gnu.build-id section, or from a PT_NOTE segment when the
// section headers were stripped. Both classes (32/64 bit) and both byte orders.

export interface ElfInfo {
  /** e_machine as the Android ABI directory names it (arm64-v8a, ...), or `machine-<n>`. */
  abi: string;
  /** Lower-case hex of the build id's bytes in file order, or null without one. */
  buildId: string | null;
}

const SHT_NOTE = 7;
const PT_NOTE = 4;
const NT_GNU_BUILD_ID = 3;

const ABIS: Record<number, string> = {
  3: 'x86',
  40: 'armeabi-v7a',
  62: 'x86_64',
  183: 'arm64-v8a',
  243: 'riscv64',
};

interface Reader {
  u16(at: number): number;
  u32(at: number): number;
  /** An address-sized field (u32 or u64) as a number. */
  word(at: number): number;
}

export function readElf(buf: Buffer): ElfInfo | null {
  if (buf.length < 52 || buf.readUInt32BE(0) !== 0x7f454c46) return null;
  const is64 = buf[4] === 2;
  const le = buf[5] === 1;
  if ((buf[4] !== 1 && !is64) || (buf[5] !== 1 && buf[5] !== 2) || (is64 && buf.length < 64)) return null;
  const r: Reader = {
    u16: (at) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at)),
    u32: (at) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at)),
    word: (at) => (is64 ? Number(le ? buf.readBigUInt64LE(at) : buf.readBigUInt64BE(at)) : r.u32(at)),
  };
  const machine = r.u16(18);
  const abi = ABIS[machine] ?? `machine-${machine}`;
  const buildId = fromSections(buf, r, is64) ?? fromSegments(buf, r, is64);
  return { abi, buildId };
}

function fromSections(buf: Buffer, r: Reader, is64: boolean): string | null {
  const shoff = r.word(is64 ? 0x28 : 0x20);
  const shentsize = r.u16(is64 ? 0x3a : 0x2e);
  const shnum = r.u16(is64 ? 0x3c : 0x30);
  if (shoff === 0 || shentsize < (is64 ? 64 : 40)) return null;
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * shentsize;
    if (at + shentsize > buf.length) return null;
    if (r.u32(at + 4) !== SHT_NOTE) continue;
    const offset = r.word(at + (is64 ? 0x18 : 0x10));
    const size = r.word(at + (is64 ? 0x20 : 0x14));
    const id = buildIdInNotes(buf, r, offset, size);
    if (id) return id;
  }
  return null;
}

function fromSegments(buf: Buffer, r: Reader, is64: boolean): string | null {
  const phoff = r.word(is64 ? 0x20 : 0x1c);
  const phentsize = r.u16(is64 ? 0x36 : 0x2a);
  const phnum = r.u16(is64 ? 0x38 : 0x2c);
  if (phoff === 0 || phentsize < (is64 ? 56 : 32)) return null;
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + phentsize > buf.length) return null;
    if (r.u32(at) !== PT_NOTE) continue;
    const offset = r.word(at + (is64 ? 0x08 : 0x04));
    const size = r.word(at + (is64 ? 0x20 : 0x10));
    const id = buildIdInNotes(buf, r, offset, size);
    if (id) return id;
  }
  return null;
}

/** Notes are namesz, descsz, type, then name and desc, each padded to 4 bytes. */
function buildIdInNotes(buf: Buffer, r: Reader, offset: number, size: number): string | null {
  const end = Math.min(offset + size, buf.length);
  let at = offset;
  while (at + 12 <= end) {
    const namesz = r.u32(at);
    const descsz = r.u32(at + 4);
    const type = r.u32(at + 8);
    const nameAt = at + 12;
    const descAt = nameAt + align4(namesz);
    const next = descAt + align4(descsz);
    if (next > end) return null;
    const name = buf.subarray(nameAt, nameAt + namesz).toString('latin1');
    if (type === NT_GNU_BUILD_ID && name === 'GNU\0' && descsz > 0)
      return buf.subarray(descAt, descAt + descsz).toString('hex');
    at = next;
  }
  return null;
}

const align4 = (n: number) => (n + 3) & ~3;
