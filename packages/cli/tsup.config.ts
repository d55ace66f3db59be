import { defineConfig } from 'tsup';

// The published bin: one ES module file with a shebang, run by plain node (npx @svc/cli). Its one
// runtime dependency (@jridgewell/remapping) stays an import: tsup leaves dependencies external.
export default defineConfig({
  entry: { 'svc-cli': 'src/bin.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  platform: 'node',
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
});
