import { readFile } from 'node:fs/promises';
import { basename, relative, sep } from 'node:path';
import { type DebugFile, debugFile } from '../debug-file';
import { statOrUsage, walkFiles } from '../paths';
import { isSourceMap } from '../source-map-json';
import { UsageError } from '../usage-error';
import type { Command } from './command';

// Web source maps from a build directory. The core maps a frame with the map whose `file` is the
// frame's file name, or the one uploaded as "<file name>.map"; the name keeps the map's path in
// the build (after an optional URL prefix) so two maps of the same base name in different
// directories do not replace each other.

const MAP_NAME = /\.(js|mjs|cjs)\.map$/;

export const sourcemapsCommand: Command = {
  name: 'sourcemaps',
  summary: 'web source maps of a build directory (*.js.map)',
  args: '<path>...',
  description: [
    'Each path is a build directory searched for *.js.map, *.mjs.map and *.cjs.map, or a map file.',
    'Each is uploaded as kind sourcemap, platform web, named <url prefix><path in the directory>',
    "(e.g. static/js/main.4f2a.js.map). The core matches a crash frame to a map by the map's",
    '"file" or by the frame\'s file name plus .map, so keep the minified file names of the build.',
  ].join('\n'),
  options: {
    'url-prefix': {
      type: 'string',
      value: '<prefix>',
      description: 'Put before every name, e.g. https://cdn.example.com/static/ or ~/static/ (default none).',
    },
  },
  async collect({ paths, values }) {
    const prefix = typeof values['url-prefix'] === 'string' ? values['url-prefix'] : '';
    const files: DebugFile[] = [];
    for (const path of paths) {
      const info = await statOrUsage(path);
      const found = info.isDirectory()
        ? (await walkFiles(path, (_p, name) => MAP_NAME.test(name))).map((p) => ({
            p,
            rel: relative(path, p),
          }))
        : [{ p: path, rel: basename(path) }];
      for (const { p, rel } of found) {
        const bytes = await readFile(p);
        if (!isSourceMap(bytes))
          throw new UsageError(`${p} is not a source map (JSON with "version": 3 and "mappings").`);
        files.push(
          debugFile({
            kind: 'sourcemap',
            platform: 'web',
            name: prefix + rel.split(sep).join('/'),
            debugId: null,
            source: p,
            bytes,
          }),
        );
      }
    }
    return files;
  },
};
