// Regenerates the React Native fixtures of the symbolication tests from app/ with the real tools:
// Metro (from this workspace, as React Native's release build runs it), hermesc and hermes from
// the npm package hermes-engine-cli (linux64 binaries; 56 MB, so not a dependency):
//
//   npm pack hermes-engine-cli@0.12.0 && tar xzf hermes-engine-cli-0.12.0.tgz
//   node apps/observability-core/src/testing/react-native-fixture/generate.mjs package/linux64-bin
//
// Writes, beside this script:
//   index.android.bundle.map   Metro's map composed with Hermes's (as react-native/scripts/
//                              compose-source-maps.js does), for the bytecode bundle
//   hermes.stack.txt           the error.stack Hermes prints running that bytecode
//   main.jsbundle.map          Metro's map alone (a JavaScriptCore build for iOS)
//   v8.stack.txt               the error.stack V8 prints running that JavaScript bundle
// The app is copied to <tmp>/shop-app first, so the maps name the same paths on every run.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../../../..');
const hermesBin = resolve(process.argv[2] ?? 'package/linux64-bin');
// Metro is installed for react-native (packages/sdk-react-native); pnpm links every package of the
// workspace's graph under node_modules/.pnpm/node_modules.
const hoisted = createRequire(join(root, 'node_modules/.pnpm/node_modules/resolve-from-here.js'));
const Metro = hoisted('metro');
const { getDefaultConfig } = hoisted('metro-config');
const composeSourceMaps = hoisted('metro-source-map').composeSourceMaps;

const app = join(tmpdir(), 'shop-app');
const out = join(app, 'out');
rmSync(app, { recursive: true, force: true });
cpSync(join(here, 'app'), app, { recursive: true });
mkdirSync(out);
const preset = dirname(hoisted.resolve('@react-native/babel-preset/package.json'));
writeFileSync(join(app, 'babel.config.js'), `module.exports = { presets: [${JSON.stringify(preset)}] };\n`);

async function bundle(platform, name) {
  const base = await getDefaultConfig(app);
  const modules = join(root, 'node_modules/.pnpm/node_modules');
  const config = {
    ...base,
    projectRoot: app,
    watchFolders: [app, modules, join(root, 'node_modules/.pnpm')],
    resolver: { ...base.resolver, nodeModulesPaths: [modules] },
    transformer: { ...base.transformer, babelTransformerPath: hoisted.resolve('metro-babel-transformer') },
    reporter: { update() {} },
  };
  const js = join(out, `${name}.js`);
  await Metro.runBuild(config, {
    entry: 'index.js',
    out: js,
    platform,
    minify: true,
    dev: false,
    sourceMap: true,
  });
  return { js, map: JSON.parse(readFileSync(js.replace(/\.js$/, '.map'), 'utf8')) };
}

// Android with Hermes: bytecode plus the composed map.
const android = await bundle('android', 'index.android.bundle');
const hbc = join(out, 'index.android.bundle');
execFileSync(join(hermesBin, 'hermesc'), [
  '-emit-binary',
  '-O',
  '-output-source-map',
  '-out',
  hbc,
  android.js,
]);
const hermesMap = JSON.parse(readFileSync(`${hbc}.map`, 'utf8'));
writeFileSync(
  join(here, 'index.android.bundle.map'),
  JSON.stringify(composeSourceMaps([android.map, hermesMap])),
);
// Run from `out` so that Hermes names the bundle as an app's loader does: by its file name.
const hermesOut = execFileSync(join(hermesBin, 'hermes'), ['-b', 'index.android.bundle'], { cwd: out });
writeFileSync(join(here, 'hermes.stack.txt'), hermesOut.toString('utf8').trim() + '\n');

// iOS with JavaScriptCore: the JavaScript bundle and Metro's map as they are.
const ios = await bundle('ios', 'main.jsbundle');
writeFileSync(join(here, 'main.jsbundle.map'), JSON.stringify(ios.map));
let printed = '';
vm.runInNewContext(
  readFileSync(ios.js, 'utf8'),
  { print: (text) => (printed += text) },
  { filename: 'main.jsbundle' },
);
writeFileSync(join(here, 'v8.stack.txt'), printed.trim() + '\n');
rmSync(app, { recursive: true, force: true });
