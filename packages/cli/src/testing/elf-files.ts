import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

// ELF shared libraries for the tests: a real one linked by gcc with a chosen build id (the
// machine's own ABI), and a minimal 32-bit big-endian one built byte by byte whose only note is in
// a PT_NOTE segment (section headers stripped), to cover the other class, byte order and path.

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

/** ELF32, big endian, e_machine `machine`, a PT_NOTE segment holding NT_GNU_BUILD_ID, no sections. */
export function elf32BigEndian(machine: number, buildId: Buffer): Buffer {
  const ehsize = 52;
  const phentsize = 32;
  const note = Buffer.alloc(12 + 4 + Math.ceil(buildId.length / 4) * 4);
  note.writeUInt32BE(4, 0);
  note.writeUInt32BE(buildId.length, 4);
  note.writeUInt32BE(3, 8);
  note.write('GNU\0', 12, 'latin1');
  buildId.copy(note, 16);
  const out = Buffer.alloc(ehsize + phentsize + note.length);
  out.writeUInt32BE(0x7f454c46, 0);
  out[4] = 1; // ELFCLASS32
  out[5] = 2; // ELFDATA2MSB
  out[6] = 1;
  out.writeUInt16BE(3, 16); // ET_DYN
  out.writeUInt16BE(machine, 18);
  out.writeUInt32BE(1, 20);
  out.writeUInt32BE(ehsize, 0x1c); // e_phoff
  out.writeUInt32BE(0, 0x20); // e_shoff: none
  out.writeUInt16BE(ehsize, 0x28);
  out.writeUInt16BE(phentsize, 0x2a);
  out.writeUInt16BE(1, 0x2c);
  out.writeUInt32BE(4, ehsize); // PT_NOTE
  out.writeUInt32BE(ehsize + phentsize, ehsize + 4); // p_offset
  out.writeUInt32BE(note.length, ehsize + 16); // p_filesz
  note.copy(out, ehsize + phentsize);
  return out;
}
