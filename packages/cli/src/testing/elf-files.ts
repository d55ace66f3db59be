import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

// ELF shared libraries for the tests: a real one linked by gcc with a chosen build id (the
// machine's own ABI), and a minimal 32-bit one built byte by byte whose only note is in a PT_NOTE
// segment (section headers stripped), to cover the other class, both byte orders and that path.

/** Links `dir/<name>` with `gcc -shared` and `--build-id=0x<buildId>`; returns its path. */
export function gccSharedLibrary(
  dir: string,
  name: string,
  buildId: string,
  source = 'int answer(void) { return 42; }\n',
): string {
  const c = join(dir, `${name}.c`);
  writeFileSync(c, source);
  const out = join(dir, name);
  execFileSync('gcc', ['-shared', '-fPIC', '-g', '-o', out, c, `-Wl,--build-id=0x${buildId}`]);
  return out;
}

/** ELF32, e_machine `machine`, a PT_NOTE segment holding NT_GNU_BUILD_ID, no sections. */
export function elf32(machine: number, buildId: Buffer, bigEndian: boolean): Buffer {
  const ehsize = 52;
  const phentsize = 32;
  const note = Buffer.alloc(12 + 4 + Math.ceil(buildId.length / 4) * 4);
  const nu32 = (v: number, at: number) => (bigEndian ? note.writeUInt32BE(v, at) : note.writeUInt32LE(v, at));
  nu32(4, 0);
  nu32(buildId.length, 4);
  nu32(3, 8);
  note.write('GNU\0', 12, 'latin1');
  buildId.copy(note, 16);
  const out = Buffer.alloc(ehsize + phentsize + note.length);
  const u32 = (v: number, at: number) => (bigEndian ? out.writeUInt32BE(v, at) : out.writeUInt32LE(v, at));
  const u16 = (v: number, at: number) => (bigEndian ? out.writeUInt16BE(v, at) : out.writeUInt16LE(v, at));
  out.writeUInt32BE(0x7f454c46, 0);
  out[4] = 1; // ELFCLASS32
  out[5] = bigEndian ? 2 : 1; // ELFDATA2MSB / ELFDATA2LSB
  out[6] = 1;
  u16(3, 16); // ET_DYN
  u16(machine, 18);
  u32(1, 20);
  u32(ehsize, 0x1c); // e_phoff
  u32(0, 0x20); // e_shoff: none
  u16(ehsize, 0x28);
  u16(phentsize, 0x2a);
  u16(1, 0x2c);
  u32(4, ehsize); // PT_NOTE
  u32(ehsize + phentsize, ehsize + 4); // p_offset
  u32(note.length, ehsize + 16); // p_filesz
  note.copy(out, ehsize + phentsize);
  return out;
}
