// The script-tag build: one minified file a page loads with <script>, defining `window.SvcWeb`,
// with its source map and its Subresource Integrity hash (sha384, base64) written beside it and
// printed, for the page's `integrity` attribute. Runs after tsup (which empties dist/ first).
// Another folder may be named as the argument (the test builds into its own).
// The settings are the ones `pnpm bench` (suite `sizes`) builds every SDK with.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(process.argv[2] ?? join(root, 'dist'), 'svc-web.min.js');

await build({
  entryPoints: [join(root, 'src', 'global.ts')],
  outfile: file,
  bundle: true,
  format: 'iife',
  globalName: 'SvcWeb',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  treeShaking: true,
  sourcemap: true,
  sourcesContent: true,
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});

const integrity = `sha384-${createHash('sha384').update(readFileSync(file)).digest('base64')}`;
writeFileSync(`${file}.sri`, `${integrity}\n`);
process.stdout.write(`${relative(process.cwd(), file)}  integrity="${integrity}"\n`);
