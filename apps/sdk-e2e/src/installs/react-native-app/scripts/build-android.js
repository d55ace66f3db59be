// What React Native's release build does for Android with Hermes (its Gradle plugin): Metro
// bundles the app (`react-native bundle`), hermesc compiles the bundle to bytecode with a source
// map, and the two maps are composed (react-native's scripts/compose-source-maps.js) into the map
// that belongs to the bytecode: build/index.android.bundle and build/index.android.bundle.map.
const { execFileSync } = require('node:child_process');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const Metro = require('metro');
const { composeSourceMaps } = require('metro-source-map');

const BUNDLE = 'index.android.bundle';
const hermesc = join(__dirname, '..', 'node_modules', 'hermes-engine-cli', 'linux64-bin', 'hermesc');

async function main() {
  mkdirSync('build/metro', { recursive: true });
  // No transform cache: a throwaway app is built once.
  const config = await Metro.loadConfig({ cwd: process.cwd() }, { cacheStores: [] });
  await Metro.runBuild(config, {
    entry: 'index.js',
    platform: 'android',
    dev: false,
    minify: true,
    sourceMap: true,
    sourceMapUrl: `${BUNDLE}.map`,
    bundleOut: `build/metro/${BUNDLE}`,
    sourceMapOut: `build/metro/${BUNDLE}.packager.map`,
  });
  execFileSync(hermesc, [
    '-emit-binary',
    '-O',
    '-output-source-map',
    '-out',
    `build/${BUNDLE}`,
    `build/metro/${BUNDLE}`,
  ]);
  renameSync(`build/${BUNDLE}.map`, `build/${BUNDLE}.compiler.map`);
  const read = (file) => JSON.parse(readFileSync(file, 'utf8'));
  const composed = composeSourceMaps([
    read(`build/metro/${BUNDLE}.packager.map`),
    read(`build/${BUNDLE}.compiler.map`),
  ]);
  writeFileSync(`build/${BUNDLE}.map`, JSON.stringify(composed));
  process.stdout.write(`built build/${BUNDLE} and build/${BUNDLE}.map\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
