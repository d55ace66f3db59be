import base from '../../jest.base.mjs';

// Two files at a time: most of an e2e file's time is a spawned stack starting or answering, not
// the test's own CPU, and this suite is the longest of `pnpm test` (scripts/test.mjs gives it a
// lane of its own). Every file starts its own stack on free ports and its own data dir; spawned
// stacks run from one bundle built per run (jest.global-setup.mjs).
export default {
  ...base,
  maxWorkers: 2,
  globalSetup: '<rootDir>/jest.global-setup.mjs',
  globalTeardown: '<rootDir>/jest.global-teardown.mjs',
};
