import { readFile } from 'node:fs/promises';
import { composeHermesMap } from '../compose-maps';
import { debugFile, type Platform } from '../debug-file';
import { statOrUsage } from '../paths';
import { parseSourceMap, type SourceMapJson } from '../source-map-json';
import { UsageError } from '../usage-error';
import type { Command } from './command';

// A React Native bundle's map, uploaded for the platform whose crashes it maps. With Hermes, the
// map Metro wrote is composed with the one hermesc wrote (compose-maps.ts); with JavaScriptCore
// (or V8), Metro's map is the one.

const DEFAULT_BUNDLE: Record<'ios' | 'android', string> = {
  ios: 'main.jsbundle',
  android: 'index.android.bundle',
};

export const reactNativeCommand: Command = {
  name: 'react-native',
  summary: "React Native bundle maps (Metro's, composed with Hermes's)",
  args: '--bundle-map <file> --platform ios|android [--hermes-map <file>]',
  description: [
    "Uploads the bundle's source map as kind sourcemap for the platform, named <bundle>.map. With",
    "--hermes-map (the .hbc.map hermesc writes) Metro's map is composed with it first, so",
    "Hermes frames (bytecode offsets) map to the source; without it Metro's map is uploaded as is",
    '(JavaScriptCore/V8 builds). The uploaded map\'s "file", when it has one, is the bundle name.',
  ].join('\n'),
  options: {
    'bundle-map': {
      type: 'string',
      value: '<file>',
      description: "Metro's source map of the bundle (required).",
    },
    'hermes-map': {
      type: 'string',
      value: '<file>',
      description: "hermesc's source map of the bytecode (Hermes builds).",
    },
    platform: {
      type: 'string',
      value: 'ios|android',
      description: 'The platform the bundle runs on (required).',
    },
    'bundle-name': {
      type: 'string',
      value: '<name>',
      description: 'The bundle file as the app loads it (default index.android.bundle / main.jsbundle).',
    },
  },
  async collect({ paths, values }) {
    if (paths.length > 0)
      throw new UsageError(`react-native takes no paths (got ${paths.join(' ')}); use --bundle-map.`);
    const platform = values.platform;
    if (platform !== 'ios' && platform !== 'android')
      throw new UsageError('--platform ios|android is required for react-native.');
    const bundleMapPath = values['bundle-map'];
    if (typeof bundleMapPath !== 'string')
      throw new UsageError('--bundle-map <file> is required for react-native.');
    const bundleName =
      typeof values['bundle-name'] === 'string' ? values['bundle-name'] : DEFAULT_BUNDLE[platform];
    const metro = await readMap(bundleMapPath);
    const hermesMapPath = values['hermes-map'];
    let map: SourceMapJson;
    let source = bundleMapPath;
    if (typeof hermesMapPath === 'string') {
      map = composeHermesMap(metro, await readMap(hermesMapPath), bundleName);
      source = `${bundleMapPath} + ${hermesMapPath}`;
    } else {
      // The core matches frames by the map's `file` when it has one: make it the bundle's name.
      map = metro.file === undefined || metro.file === bundleName ? metro : { ...metro, file: bundleName };
    }
    const bytes = map === metro ? await readFile(bundleMapPath) : Buffer.from(JSON.stringify(map), 'utf8');
    return [
      debugFile({
        kind: 'sourcemap',
        platform: platform as Platform,
        name: `${bundleName}.map`,
        debugId: null,
        source,
        bytes,
      }),
    ];
  },
};

async function readMap(path: string): Promise<SourceMapJson> {
  await statOrUsage(path);
  const map = parseSourceMap(await readFile(path));
  if (!map) throw new UsageError(`${path} is not a source map (JSON with "version": 3 and "mappings").`);
  return map;
}
