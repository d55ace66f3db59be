import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readElf } from './elf';
import { elf32, gccSharedLibrary } from './testing/elf-files';

const MACHINE_ABI: Record<string, string> = {
  x64: 'x86_64',
  arm64: 'arm64-v8a',
  ia32: 'x86',
  arm: 'armeabi-v7a',
};

describe('readElf', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-cli-elf-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the GNU build id of a library gcc linked, as the bytes in file order', () => {
    const buildId = '0123456789abcdef00112233445566778899aabb';
    const info = readElf(readFileSync(gccSharedLibrary(dir, 'libanswer.so', buildId)));
    expect(info).toEqual({ abi: MACHINE_ABI[process.arch] ?? expect.any(String), buildId });
  });

  it('reads a 32-bit big-endian file whose build id is only in a PT_NOTE segment', () => {
    const id = Buffer.from('feedface0badc0de', 'hex');
    expect(readElf(elf32(40, id, true))).toEqual({ abi: 'armeabi-v7a', buildId: 'feedface0badc0de' });
  });

  it('answers null for what is not ELF and a null build id when there is none', () => {
    expect(
      readElf(Buffer.from('not an elf file at all, long enough to have a header of 52 bytes')),
    ).toBeNull();
    const noNote = elf32(183, Buffer.alloc(0), false);
    expect(readElf(noNote)).toEqual({ abi: 'arm64-v8a', buildId: null });
  });
});
