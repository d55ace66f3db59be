import { defineConfig } from 'tsup';

// The build that is published (pnpm pack, publishConfig); the workspace imports src/ directly.
// ES module and CommonJS with a bundled declaration file each (.d.ts, .d.cts: one file, so no
// relative import inside it needs an extension under `moduleResolution: node16`), and source maps
// carrying their sources (src/ is not shipped). @svc/sdk-core stays an import (tsup leaves
// dependencies external), so an app has one copy of it.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  platform: 'node',
  target: 'node20',
});
