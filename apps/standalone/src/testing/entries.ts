import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TEST_BUNDLES_ENV } from './test-bundles';

// The processes tests start, by name: from the bundles jest's global setup built for this run
// (test-bundles.ts: the same sources, not compiled again at each start), else from the sources
// through tsx, as `pnpm start` runs.

const require = createRequire(import.meta.url);
const SOURCES = {
  stack: fileURLToPath(new URL('../main.ts', import.meta.url)),
  gateway: join(dirname(require.resolve('@svc/http-gateway')), 'main.ts'),
  stdio: join(dirname(require.resolve('@svc/stdio-server')), 'main.ts'),
} as const;

export type Entry = keyof typeof SOURCES;

/** The node arguments that start `entry`. */
export function entryArgs(entry: Entry): string[] {
  const bundles = process.env[TEST_BUNDLES_ENV];
  return bundles ? [join(bundles, `${entry}.js`)] : ['--import', 'tsx', SOURCES[entry]];
}

/** The gateway's answer worker built for this run, when there is one. */
export function answerWorkerBundle(): URL | undefined {
  const bundles = process.env[TEST_BUNDLES_ENV];
  return bundles ? pathToFileURL(join(bundles, 'answer-worker.js')) : undefined;
}
