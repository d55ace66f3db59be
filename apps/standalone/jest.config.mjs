import base from '../../jest.base.mjs';

// Two files at a time: most of an e2e file's time is a spawned stack starting or answering, not
// the test's own CPU, and this suite is the longest of `pnpm test` (scripts/test.mjs gives it a
// lane of its own). Every file starts its own stack on free ports and its own data dir; the
// processes tests start run from bundles built once per run (src/testing/test-bundles.ts).
export default {
  ...base,
  maxWorkers: 2,
  globalSetup: '<rootDir>/src/testing/jest-global-setup.ts',
  globalTeardown: '<rootDir>/src/testing/jest-global-teardown.ts',
};
