import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { type DebugFile, debugFile } from '../debug-file';
import { readElf } from '../elf';
import { expandPaths } from '../paths';
import { UsageError } from '../usage-error';
import type { Command } from './command';

// Android NDK shared libraries: each ELF .so with its GNU build id, the id a tombstone prints
// for the library. One upload per ABI: the same library name exists once per ABI directory.

export const ndkCommand: Command = {
  name: 'ndk',
  summary: 'Android NDK .so libraries (by ELF build id)',
  args: '<path>...',
  description: [
    'Each path is a .so file or a directory searched for *.so files (the unstripped libraries:',
    'app/build/intermediates/merged_native_libs/<variant>/out/lib). Each is uploaded as kind so,',
    'platform android, named <abi>/<library> (the ABI from the ELF machine), with its GNU build',
    'id (hex, as readelf -n and tombstones print it) as debug id.',
  ].join('\n'),
  options: {},
  async collect({ paths }) {
    const found = await expandPaths(paths, (_path, name) => name.endsWith('.so'));
    const files: DebugFile[] = [];
    for (const path of found) {
      const bytes = await readFile(path);
      const elf = readElf(bytes);
      if (!elf) throw new UsageError(`${path} is not an ELF file.`);
      if (!elf.buildId)
        throw new UsageError(
          `${path} has no GNU build id: a crash cannot name it (link with -Wl,--build-id).`,
        );
      files.push(
        debugFile({
          kind: 'so',
          platform: 'android',
          name: `${elf.abi}/${basename(path)}`,
          debugId: elf.buildId,
          source: path,
          bytes,
        }),
      );
    }
    return files;
  },
};
