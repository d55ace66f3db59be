import base from '../../jest.base.mjs';

export default {
  ...base,
  // The install proofs (src/installs) need every public package packed: once per run, here.
  globalSetup: '<rootDir>/src/installs/testing/global-setup.ts',
  globalTeardown: '<rootDir>/src/installs/testing/global-teardown.ts',
};
