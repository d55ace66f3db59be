import { type FunctionSymbol, type NativeSymbols, symbolTable } from './native-symbols';

// ELF shared objects (an Android app's NDK `.so`), as far as naming a frame needs them: the
// function symbols of `.symtab` (present unless stripped) and `.dynsym` (always), and the GNU
// build id (the NT_GNU_BUILD_ID note), which is the library's debug id. 32- and 64-bit,
// little-endian (every Android ABI). A function symbol's value is its address relative to the
// library's load address, the same space a frame's module-relative `address` is in.
// Line numbers (DWARF .debug_line) are not read: frames get the function only.

const SHT_SYMTAB = 2;
const SHT_NOTE = 7;
const SHT_DYNSYM = 11;
const STT_FUNC = 2;
const NT_GNU_BUILD_ID = 3;
const EM_ARM = 40;

export function isElf(bytes: Buffer): boolean {
  return bytes.length >= 52 && bytes.readUInt32BE(0) === 0x7f454c46;
}

interface Section {
  type: number;
  addr: number;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

export interface ElfFile extends NativeSymbols {
  /** The GNU build id, upper-case hex; null when the library has none. */
  buildId: string | null;
}

/** Throws on a file that is not a little-endian ELF or whose section table is out of bounds. */
export function parseElf(bytes: Buffer): ElfFile {
  if (!isElf(bytes)) throw new Error('not an ELF file');
  const is64 = bytes[4] === 2;
  if (bytes[5] !== 1) throw new Error('only little-endian ELF files are read');
  const word = (at: number) => (is64 ? Number(bytes.readBigUInt64LE(at)) : bytes.readUInt32LE(at));
  const shoff = word(is64 ? 0x28 : 0x20);
  const shentsize = bytes.readUInt16LE(is64 ? 0x3a : 0x2e);
  const shnum = bytes.readUInt16LE(is64 ? 0x3c : 0x30);
  const arm32 = bytes.readUInt16LE(0x12) === EM_ARM;
  if (shoff + shnum * shentsize > bytes.length) throw new Error('ELF section table is out of bounds');

  const sections: Section[] = [];
  for (let i = 0; i < shnum; i += 1) {
    const at = shoff + i * shentsize;
    sections.push({
      type: bytes.readUInt32LE(at + 4),
      addr: word(at + (is64 ? 0x10 : 0x0c)),
      offset: word(at + (is64 ? 0x18 : 0x10)),
      size: word(at + (is64 ? 0x20 : 0x14)),
      link: bytes.readUInt32LE(at + (is64 ? 0x28 : 0x18)),
      entsize: word(at + (is64 ? 0x38 : 0x24)),
    });
  }
  const inBounds = (s: Section) => s.offset + s.size <= bytes.length;

  const functions: FunctionSymbol[] = [];
  for (const table of sections.filter((s) => s.type === SHT_SYMTAB || s.type === SHT_DYNSYM)) {
    const strings = sections[table.link];
    const entsize = table.entsize || (is64 ? 24 : 16);
    if (!strings || !inBounds(table) || !inBounds(strings)) continue;
    for (let at = table.offset; at + entsize <= table.offset + table.size; at += entsize) {
      const nameOffset = bytes.readUInt32LE(at);
      const info = bytes[at + (is64 ? 4 : 12)]!;
      const shndx = bytes.readUInt16LE(at + (is64 ? 6 : 14));
      const value = is64 ? Number(bytes.readBigUInt64LE(at + 8)) : bytes.readUInt32LE(at + 4);
      const size = is64 ? Number(bytes.readBigUInt64LE(at + 16)) : bytes.readUInt32LE(at + 8);
      if ((info & 0xf) !== STT_FUNC || shndx === 0 || value === 0) continue; // undefined: imported
      const name = cString(bytes, strings.offset + nameOffset, strings.offset + strings.size);
      // 32-bit ARM Thumb functions have the low bit set in their value; the code starts one lower.
      const section = sections[shndx];
      const sectionEnd = section ? section.addr + section.size : value + size;
      if (name) functions.push({ address: arm32 ? value - (value % 2) : value, size, sectionEnd, name });
    }
  }

  let buildId: string | null = null;
  for (const note of sections.filter((s) => s.type === SHT_NOTE && inBounds(s))) {
    let at = note.offset;
    while (buildId === null && at + 12 <= note.offset + note.size) {
      const namesz = bytes.readUInt32LE(at);
      const descsz = bytes.readUInt32LE(at + 4);
      const type = bytes.readUInt32LE(at + 8);
      const desc = at + 12 + align4(namesz);
      if (desc + descsz > note.offset + note.size) break;
      const name = bytes.toString('latin1', at + 12, at + 12 + Math.max(0, namesz - 1));
      if (type === NT_GNU_BUILD_ID && name === 'GNU')
        buildId = bytes.toString('hex', desc, desc + descsz).toUpperCase();
      at = desc + align4(descsz);
    }
  }
  return { buildId, ...symbolTable(functions) };
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

function cString(bytes: Buffer, start: number, limit: number): string {
  const end = bytes.indexOf(0, start);
  return bytes.toString('utf8', start, end < 0 || end > limit ? limit : end);
}
