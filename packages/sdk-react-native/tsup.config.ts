import { rmSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

// The build that is published (pnpm pack, publishConfig); the workspace imports src/ directly.
// ES module and CommonJS with a bundled declaration file each (.d.ts, .d.cts: one file, so no
// relative import inside it needs an extension under `moduleResolution: node16`), and source maps
// carrying their sources (src/ is not shipped). Dependencies and peer dependencies (react-native,
// AsyncStorage, the random-values polyfill, @noble, fflate, @svc/sdk-core) stay imports.
const shared: Options = { format: ['esm', 'cjs'], dts: true, sourcemap: true };

// The two builds below run at once into dist/: neither may clean it, so it is emptied here first.
rmSync('dist', { recursive: true, force: true });

export default defineConfig([
  {
    ...shared,
    // The app's entry, typed as an app compiles it: react-native's types, not Node's.
    entry: { index: 'src/index.ts' },
    tsconfig: 'tsconfig.rn.json',
    platform: 'neutral',
    target: 'es2022',
  },
  {
    ...shared,
    // The same SDK on Node's files, crypto and zlib (simulated apps, tests).
    entry: { 'node/index': 'src/node/index.ts' },
    tsconfig: 'tsconfig.json',
    platform: 'node',
    target: 'node20',
  },
]);
