// The React Native adapters, tested the way React Native libraries are: jest with the
// react-native preset (babel, @react-native/babel-preset) and the libraries' own jest mocks.
// A separate config: the preset transforms with babel, the rest of the repository with SWC.
module.exports = {
  preset: '@react-native/jest-preset',
  testMatch: ['<rootDir>/src/**/*.rn.test.ts'],
  // pnpm keeps packages under node_modules/.pnpm/<name>@<version>/node_modules/<name>: the
  // preset's pattern would skip React Native's own Flow sources there. ESM-only packages
  // (@noble) are transformed too.
  transformIgnorePatterns: [
    'node_modules/(?!(\\.pnpm|(jest-)?react-native(-[a-z-]+)?|@react-native(-community|-async-storage)?|@noble)[/+])',
  ],
  setupFiles: ['<rootDir>/src/react-native/testing/jest-setup.cjs'],
  testTimeout: 30_000,
  maxWorkers: 1,
};
