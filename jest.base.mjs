// Shared jest setup: ESM TypeScript through SWC, no type-checking here (that is `pnpm typecheck`).
// Jest runs in native ESM mode (NODE_OPTIONS=--experimental-vm-modules, set by each package's
// test script) so ESM-only dependencies such as got load as they do in production.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts', '.tsx'],
  transform: {
    // .tsx: the web console's pages (Preact's JSX, rendered on the server).
    '^.+\\.tsx?$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', tsx: true },
          transform: { react: { runtime: 'automatic', importSource: 'preact' } },
          target: 'es2022',
        },
        module: { type: 'es6' },
        sourceMaps: 'inline',
      },
    ],
  },
  testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  // A ceiling, not an expectation: a test is never timed (waits in tests wait on progress), and a
  // machine at load 15 on 2 cores runs one 5-10 times slower than a calm one. A test that starts a
  // stack says so with STACK_SETUP_TIMEOUT_MS (@svc/standalone/testing), above the ceiling of the
  // stack's own progress-based wait, whose message (with the stack's output) is the one to read.
  testTimeout: 300_000,
  maxWorkers: 1,
};
