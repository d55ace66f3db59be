import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENTRY_SOURCES, TEST_BUNDLES_ENV } from './entries';

// The processes tests start (the stack, a gateway, the stdio server: entries.ts) run from bundles
// built once per jest run by its global setup, as an image runs its app: through tsx each start
// compiled every source file again, 5-6 CPU-s of a spawned stack's 16-20 (measured side by side).
// `pnpm start` itself, which the quick start test runs, stays on the sources.
// SVC_TEST_FROM_SOURCES=1 starts everything from the sources.
//
// The bundles sit where a built app finds what it reads beside itself: in this package (npm
// dependencies resolve from here, and the stack's banner finds the repository), the gateway's
// answer worker and the console's view host script beside them, the console's static files at
// ../static.

// The real path: through another package's node_modules link, ../console would not be the console.
const APP = realpathSync(fileURLToPath(new URL('../..', import.meta.url)));
const CONSOLE = join(APP, '..', 'console');

/** Builds the bundles and names them in TEST_BUNDLES_ENV (for the test processes jest starts next). */
export function buildTestBundles(): void {
  if (process.env.SVC_TEST_FROM_SOURCES === '1') return;
  const dir = join(APP, 'node_modules', '.cache', `test-bundles-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'app'), { recursive: true });
  const node = (args: string[], cwd = APP) =>
    execFileSync(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  for (const [name, source] of Object.entries(ENTRY_SOURCES))
    node(['../../scripts/build-app.mjs', source, join(dir, 'app', `${name}.js`)]);
  const viewHost = node(
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      "const { bundleViewHost } = await import('./src/views/bundle-view-host.ts'); process.stdout.write(await bundleViewHost());",
    ],
    CONSOLE,
  );
  writeFileSync(join(dir, 'app', 'view-host.js'), viewHost);
  symlinkSync(join(CONSOLE, 'static'), join(dir, 'static'));
  process.env[TEST_BUNDLES_ENV] = join(dir, 'app');
}

/** Removes what buildTestBundles built (jest's global teardown). */
export function removeTestBundles(): void {
  const app = process.env[TEST_BUNDLES_ENV];
  if (!app) return;
  rmSync(dirname(app), { recursive: true, force: true });
  delete process.env[TEST_BUNDLES_ENV];
}
