import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type DebugFile, debugFile } from '../debug-file';
import { readMachO } from '../macho';
import { statOrUsage, walkDirs } from '../paths';
import { UsageError } from '../usage-error';
import type { Command } from './command';

// iOS dSYM bundles: every Mach-O in Foo.app.dSYM/Contents/Resources/DWARF/, one upload per
// architecture (a fat file is split into its thin slices), each named by its LC_UUID: the image
// UUID a crash report lists for the binary.

const DWARF_DIR = join('Contents', 'Resources', 'DWARF');

export const dsymCommand: Command = {
  name: 'dsym',
  summary: 'iOS dSYM bundles (each architecture, by its Mach-O UUID)',
  args: '<path>...',
  description: [
    'Each path is a .dSYM bundle, a directory searched for .dSYM bundles (an Xcode archive,',
    '$DWARF_DSYM_FOLDER_PATH), or a Mach-O file itself. Every Mach-O under',
    'Contents/Resources/DWARF/ is uploaded once per architecture (a fat file is split), kind',
    "dsym, platform ios, named <bundle>/<arch>/<binary>, with the slice's LC_UUID as debug id.",
  ].join('\n'),
  options: {},
  async collect({ paths }) {
    const files: DebugFile[] = [];
    for (const path of paths) {
      const info = await statOrUsage(path);
      if (!info.isDirectory()) {
        files.push(...(await machOUploads(path, bundleOf(path))));
        continue;
      }
      for (const bundle of await walkDirs(path, (name) => name.endsWith('.dSYM'))) {
        const dwarf = join(bundle, DWARF_DIR);
        let names: string[];
        try {
          names = (await readdir(dwarf, { withFileTypes: true }))
            .filter((e) => e.isFile())
            .map((e) => e.name);
        } catch {
          throw new UsageError(`${bundle} is not a dSYM bundle: it has no ${DWARF_DIR} directory.`);
        }
        for (const name of names.sort())
          files.push(...(await machOUploads(join(dwarf, name), basename(bundle))));
      }
    }
    return files;
  },
};

/** The .dSYM bundle a DWARF file is inside, else the file's own name. */
function bundleOf(path: string): string {
  const parts = path.split(/[/\\]/);
  return parts.findLast((p) => p.endsWith('.dSYM')) ?? basename(path);
}

async function machOUploads(path: string, bundle: string): Promise<DebugFile[]> {
  const bytes = await readFile(path);
  const slices = readMachO(bytes);
  if (!slices) throw new UsageError(`${path} is not a Mach-O file.`);
  const binary = basename(path);
  return slices.map((slice) => {
    if (!slice.uuid)
      throw new UsageError(
        `${path} (${slice.arch}) has no LC_UUID: a crash cannot name it (was it linked with -no_uuid?).`,
      );
    return debugFile({
      kind: 'dsym',
      platform: 'ios',
      name: `${bundle}/${slice.arch}/${binary}`,
      debugId: slice.uuid,
      source: slices.length > 1 ? `${path} (${slice.arch})` : path,
      bytes: slices.length > 1 ? bytes.subarray(slice.offset, slice.offset + slice.size) : bytes,
    });
  });
}
