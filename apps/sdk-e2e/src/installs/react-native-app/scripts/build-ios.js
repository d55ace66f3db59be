// What React Native's release build does for iOS with JavaScriptCore (Hermes off): Metro bundles
// the app (`react-native bundle`) into build/ios/main.jsbundle and its source map beside it; the
// engine runs the JavaScript as it is, so Metro's map is the one that belongs to the bundle.
const { mkdirSync } = require('node:fs');
const Metro = require('metro');

async function main() {
  mkdirSync('build/ios', { recursive: true });
  // No transform cache: a throwaway app is built once.
  const config = await Metro.loadConfig({ cwd: process.cwd() }, { cacheStores: [] });
  await Metro.runBuild(config, {
    entry: 'index.js',
    platform: 'ios',
    dev: false,
    minify: true,
    sourceMap: true,
    sourceMapUrl: 'main.jsbundle.map',
    bundleOut: 'build/ios/main.jsbundle',
    sourceMapOut: 'build/ios/main.jsbundle.map',
  });
  process.stdout.write('built build/ios/main.jsbundle and build/ios/main.jsbundle.map\n');
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
