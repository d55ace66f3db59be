import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The processes tests start, by name: from the bundles jest's global setup built for this run
// (test-bundles.ts: the same sources, not compiled again at each start), else from the sources
// through tsx, as `pnpm start` runs.

/** Where the bundles are, when they were built (the directory of stack.js, gateway.js, ...). */
export const TEST_BUNDLES_ENV = 'SVC_TEST_BUNDLES';

const require = createRequire(import.meta.url);
const gatewaySources = dirname(require.resolve('@svc/http-gateway'));

/** Each entry's source; its bundle is `<name>.js`. */
export const ENTRY_SOURCES = {
  stack: fileURLToPath(new URL('../main.ts', import.meta.url)),
  gateway: join(gatewaySources, 'main.ts'),
  stdio: join(dirname(require.resolve('@svc/stdio-server')), 'main.ts'),
  // Beside the others: a bundled gateway starts its workers from ./answer-worker.js.
  'answer-worker': join(gatewaySources, 'answer-worker.ts'),
} as const;

export type Entry = Exclude<keyof typeof ENTRY_SOURCES, 'answer-worker'>;

const bundleOf = (name: keyof typeof ENTRY_SOURCES): string | undefined => {
  const bundles = process.env[TEST_BUNDLES_ENV];
  return bundles ? join(bundles, `${name}.js`) : undefined;
};

/** The node arguments that start `entry`. */
export function entryArgs(entry: Entry): string[] {
  const bundle = bundleOf(entry);
  return bundle ? [bundle] : ['--import', 'tsx', ENTRY_SOURCES[entry]];
}

/** The gateway's answer worker built for this run, when there is one. */
export function answerWorkerBundle(): URL | undefined {
  const bundle = bundleOf('answer-worker');
  return bundle ? pathToFileURL(bundle) : undefined;
}
