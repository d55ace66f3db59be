// `pnpm build` of an app: one ESM bundle. The app's own npm dependencies (its package.json, so
// installed beside it) stay external; everything else is bundled in: the workspace packages (@svc/*,
// whose exports point at TypeScript sources) and what they depend on. Packages that cannot be
// bundled (native addons, WASM with files of their own) must therefore be dependencies of the app.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const [entry = 'src/main.ts', outfile = 'dist/main.js'] = process.argv.slice(2);
const own = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).dependencies ?? {}).filter(
  (name) => !name.startsWith('@svc/'),
);
const isOwn = (path) => own.some((name) => path === name || path.startsWith(`${name}/`));

await build({
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
});
