import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { type DebugFile, debugFile } from '../debug-file';
import { expandPaths } from '../paths';
import { UsageError } from '../usage-error';
import type { Command } from './command';

// Android R8/ProGuard mapping files (mapping.txt): the obfuscated names of a release's classes
// and methods. R8 writes `# pg_map_id: <hex>` into the header; that is the debug id when present.

const CLASS_LINE = /^\S.* -> \S+:\s*$/;
const MAP_ID = /^#\s*pg_map_id:\s*([0-9a-fA-F]+)\s*$/m;

export const proguardCommand: Command = {
  name: 'proguard',
  summary: 'Android R8/ProGuard mapping.txt files',
  args: '<path>...',
  description: [
    'Each path is a mapping file or a directory searched for mapping.txt (R8 writes it to',
    'app/build/outputs/mapping/<variant>/mapping.txt). Each is uploaded as kind proguard, platform',
    "android, under its file name, with R8's pg_map_id as debug id when the header has one.",
    'Give --release: a mapping belongs to one build.',
  ].join('\n'),
  options: {},
  async collect({ paths }) {
    const found = await expandPaths(paths, (_path, name) => name === 'mapping.txt');
    const files: DebugFile[] = [];
    for (const path of found) {
      const bytes = await readFile(path);
      const text = bytes.toString('utf8');
      const firstEntry = text.split(/\r?\n/).find((line) => line.trim() !== '' && !line.startsWith('#'));
      if (firstEntry === undefined || !CLASS_LINE.test(firstEntry))
        throw new UsageError(
          `${path} is not a ProGuard/R8 mapping file (expected lines like "com.example.Foo -> a.b:").`,
        );
      files.push(
        debugFile({
          kind: 'proguard',
          platform: 'android',
          name: basename(path),
          debugId: MAP_ID.exec(text)?.[1]?.toLowerCase() ?? null,
          source: path,
          bytes,
        }),
      );
    }
    return files;
  },
};
