import { type FunctionSymbol, type NativeSymbols, symbolTable } from './native-symbols';

// Mach-O files (the DWARF file inside an iOS dSYM bundle, `Shop.app.dSYM/Contents/Resources/
// DWARF/Shop`, or the app's binary itself), as far as naming a frame needs them: the symbols of
// LC_SYMTAB defined in __TEXT,__text and the LC_UUID, which is the binary's debug id. 64-bit
// little-endian (arm64, x86_64); a universal (fat) file is read at its arm64 slice, else its
// first 64-bit one. Mach-O symbols carry no size: a function reaches up to the next symbol or the
// end of __text. Addresses in the file include __TEXT's vmaddr (0x100000000 for an app); a
// frame's `address` is relative to the image's load address, so it is looked up at vmaddr + it.
// Line numbers (DWARF __debug_line) are not read: frames get the function only.

const MH_MAGIC_64 = 0xfeedfacf;
const FAT_MAGIC = 0xcafebabe;
const CPU_TYPE_ARM64 = 0x0100000c;
const LC_SYMTAB = 0x2;
const LC_SEGMENT_64 = 0x19;
const LC_UUID = 0x1b;
const N_STAB = 0xe0;
const N_TYPE = 0x0e;
const N_SECT = 0x0e;

export function isMachO(bytes: Buffer): boolean {
  return bytes.length >= 32 && (bytes.readUInt32LE(0) === MH_MAGIC_64 || bytes.readUInt32BE(0) === FAT_MAGIC);
}

export interface MachOFile extends NativeSymbols {
  /** LC_UUID as upper-case hex with dashes (8-4-4-4-12); null when absent. */
  uuid: string | null;
}

/** The 64-bit slice to read: the file itself, or of a universal file arm64 first. */
function slice(bytes: Buffer): Buffer {
  if (bytes.readUInt32BE(0) !== FAT_MAGIC) return bytes;
  const count = bytes.readUInt32BE(4);
  const arches: { cputype: number; offset: number; size: number }[] = [];
  for (let i = 0; i < count && 8 + (i + 1) * 20 <= bytes.length; i += 1) {
    const at = 8 + i * 20;
    arches.push({
      cputype: bytes.readUInt32BE(at),
      offset: bytes.readUInt32BE(at + 8),
      size: bytes.readUInt32BE(at + 12),
    });
  }
  const inBounds = arches.filter(
    (a) => a.offset + a.size <= bytes.length && bytes.readUInt32LE(a.offset) === MH_MAGIC_64,
  );
  const chosen = inBounds.find((a) => a.cputype === CPU_TYPE_ARM64) ?? inBounds[0];
  if (!chosen) throw new Error('universal Mach-O file without a 64-bit slice');
  return bytes.subarray(chosen.offset, chosen.offset + chosen.size);
}

/** Throws on a file that is not a 64-bit Mach-O (or universal file holding one). */
export function parseMachO(file: Buffer): MachOFile {
  if (!isMachO(file)) throw new Error('not a Mach-O file');
  const bytes = slice(file);
  if (bytes.readUInt32LE(0) !== MH_MAGIC_64) throw new Error('only 64-bit Mach-O files are read');
  const ncmds = bytes.readUInt32LE(16);
  let uuid: string | null = null;
  let textVmaddr = 0;
  let symtab: { symoff: number; nsyms: number; stroff: number; strsize: number } | null = null;
  // Sections are numbered from 1 across all segments, in load-command order.
  const sections: { segment: string; name: string; addr: number; size: number }[] = [];
  let at = 32;
  for (let i = 0; i < ncmds && at + 8 <= bytes.length; i += 1) {
    const cmd = bytes.readUInt32LE(at);
    const size = bytes.readUInt32LE(at + 4);
    if (size < 8 || at + size > bytes.length) break;
    if (cmd === LC_UUID && size >= 24) {
      const hex = bytes.toString('hex', at + 8, at + 24).toUpperCase();
      uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    } else if (cmd === LC_SYMTAB && size >= 24) {
      symtab = {
        symoff: bytes.readUInt32LE(at + 8),
        nsyms: bytes.readUInt32LE(at + 12),
        stroff: bytes.readUInt32LE(at + 16),
        strsize: bytes.readUInt32LE(at + 20),
      };
    } else if (cmd === LC_SEGMENT_64 && size >= 72) {
      const segment = name16(bytes, at + 8);
      if (segment === '__TEXT') textVmaddr = Number(bytes.readBigUInt64LE(at + 24));
      const nsects = bytes.readUInt32LE(at + 64);
      for (let s = 0; s < nsects && at + 72 + (s + 1) * 80 <= at + size; s += 1) {
        const sect = at + 72 + s * 80;
        sections.push({
          name: name16(bytes, sect),
          segment: name16(bytes, sect + 16),
          addr: Number(bytes.readBigUInt64LE(sect + 32)),
          size: Number(bytes.readBigUInt64LE(sect + 40)),
        });
      }
    }
    at += size;
  }

  const functions: FunctionSymbol[] = [];
  if (
    symtab &&
    symtab.symoff + symtab.nsyms * 16 <= bytes.length &&
    symtab.stroff + symtab.strsize <= bytes.length
  ) {
    for (let i = 0; i < symtab.nsyms; i += 1) {
      const entry = symtab.symoff + i * 16;
      const type = bytes[entry + 4]!;
      const section = sections[bytes[entry + 5]! - 1];
      // Defined in a section, not a debugging (stab) entry, in the code section.
      if (type & N_STAB || (type & N_TYPE) !== N_SECT) continue;
      if (section?.segment !== '__TEXT' || section.name !== '__text') continue;
      const strx = bytes.readUInt32LE(entry);
      if (strx >= symtab.strsize) continue;
      const start = symtab.stroff + strx;
      const end = bytes.indexOf(0, start);
      const raw = bytes.toString(
        'utf8',
        start,
        end < 0 || end > symtab.stroff + symtab.strsize ? symtab.stroff + symtab.strsize : end,
      );
      // Assembler-local labels (ltmp0, L...) name no function.
      if (raw.startsWith('l') || raw.startsWith('L')) continue;
      // C symbols carry a leading underscore in Mach-O; the function's name is without it.
      const name = raw.startsWith('_') ? raw.slice(1) : raw;
      const address = Number(bytes.readBigUInt64LE(entry + 8));
      if (name) functions.push({ address, size: 0, sectionEnd: section.addr + section.size, name });
    }
  }
  const table = symbolTable(functions);
  return { uuid, lookup: (address) => table.lookup(textVmaddr + address) };
}

function name16(bytes: Buffer, at: number): string {
  const raw = bytes.toString('latin1', at, at + 16);
  const nul = raw.indexOf('\u0000');
  return nul < 0 ? raw : raw.slice(0, nul);
}
