import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { type DebugFile, debugFile, type Platform } from '../debug-file';
import { expandPaths } from '../paths';
import { UsageError } from '../usage-error';
import type { Command } from './command';

// Breakpad symbol files (dump_syms output). The first line says what they describe:
// MODULE <os> <arch> <debug id> <module name>. Named as a Breakpad symbol store lays them out,
// <module>/<debug id>/<file>, so two architectures of one library are two uploads.

const MODULE_LINE = /^MODULE (\S+) (\S+) ([0-9A-Fa-f]+) (.+)$/;
const OS_PLATFORMS: Record<string, Platform> = {
  mac: 'ios',
  ios: 'ios',
  linux: 'android',
  android: 'android',
};

export const breakpadCommand: Command = {
  name: 'breakpad',
  summary: 'Breakpad .sym files (dump_syms output) for iOS or Android',
  args: '<path>...',
  description: [
    'Each path is a .sym file or a directory searched for *.sym files. Each is uploaded as kind',
    "breakpad, named <module>/<debug id>/<file>, with the MODULE line's id as debug id. The",
    "platform follows the MODULE line's OS (mac/iOS: ios; Linux/Android: android) unless",
    '--platform says it.',
  ].join('\n'),
  options: {
    platform: {
      type: 'string',
      value: 'ios|android',
      description: 'The platform of every file (default: from its MODULE line).',
    },
  },
  async collect({ paths, values }) {
    const forced = values.platform;
    if (forced !== undefined && forced !== 'ios' && forced !== 'android')
      throw new UsageError(`--platform must be ios or android, not "${forced}".`);
    const found = await expandPaths(paths, (_path, name) => name.endsWith('.sym'));
    const files: DebugFile[] = [];
    for (const path of found) {
      const bytes = await readFile(path);
      const firstLine = bytes.subarray(0, 4096).toString('utf8').split(/\r?\n/, 1)[0] ?? '';
      const match = MODULE_LINE.exec(firstLine.trimEnd());
      if (!match)
        throw new UsageError(
          `${path} is not a Breakpad symbol file (its first line is not MODULE <os> <arch> <id> <name>).`,
        );
      const [, os, , id, module] = match as unknown as [string, string, string, string, string];
      const platform = (forced as Platform | undefined) ?? OS_PLATFORMS[os.toLowerCase()];
      if (!platform)
        throw new UsageError(
          `${path}: MODULE OS "${os}" is neither iOS nor Android; say which with --platform ios|android.`,
        );
      const moduleName = basename(module.replace(/\\/g, '/'));
      files.push(
        debugFile({
          kind: 'breakpad',
          platform,
          name: `${moduleName}/${id.toUpperCase()}/${basename(path)}`,
          debugId: id.toUpperCase(),
          source: path,
          bytes,
        }),
      );
    }
    return files;
  },
};
