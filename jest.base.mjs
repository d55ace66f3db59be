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
  testTimeout: 60_000,
  maxWorkers: 1,
};
