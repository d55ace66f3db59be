// `pnpm build` of an app: one ESM bundle. The app's own npm dependencies (its package.json, so
// installed beside it) stay external; everything else is bundled in: the workspace packages (@svc/*,
// whose exports point at TypeScript sources) and what they depend on. Packages that cannot be
// bundled (native addons, WASM with files of their own) must therefore be dependencies of the app.
// Beside the bundle, `<outfile>.externals.json` names the npm packages it imports at run time: what
// a production install of the app needs (deploy/assemble-app.mjs installs exactly those), including
// an own dependency whose file the code only resolves at run time (`require.resolve('pkg/file')`,
// e.g. the console's Pico CSS): esbuild leaves such a call alone, so it is read from the bundle.
import { readFileSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { build } from 'esbuild';

const [entry = 'src/main.ts', outfile = 'dist/main.js'] = process.argv.slice(2);
const own = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).dependencies ?? {}).filter(
  (name) => !name.startsWith('@svc/'),
);
const isOwn = (path) => own.some((name) => path === name || path.startsWith(`${name}/`));

const result = await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // CommonJS dependencies bundled into an ES module still call require().
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  plugins: [
    {
      name: 'own-dependencies-external',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          isOwn(args.path) ? { path: args.path, external: true } : undefined,
        );
      },
    },
  ],
  logLevel: 'warning',
  metafile: true,
});

/** `@scope/name/sub/path.js` -> `@scope/name`; `name/sub` -> `name`. */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const externals = new Set();
for (const output of Object.values(result.metafile.outputs))
  for (const i of output.imports) if (i.external && !isBuiltin(i.path)) externals.add(packageOf(i.path));
// The banner's and the sources' `require` may be renamed by esbuild (require2, ...).
const RESOLVED = /\b(?:require\d*|import\.meta)\.resolve\(\s*(["'`])([^"'`]+)\1\s*\)/g;
for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js')))
  for (const m of readFileSync(file, 'utf8').matchAll(RESOLVED))
    if (isOwn(m[2])) externals.add(packageOf(m[2]));
writeFileSync(`${outfile}.externals.json`, `${JSON.stringify([...externals].sort(), null, 2)}\n`);
