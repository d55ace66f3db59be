// The libraries' own jest mocks, as their docs say to set them up.
jest.mock('@react-native-async-storage/async-storage', () =>
  require('@react-native-async-storage/async-storage/jest'),
);

// Hermes before React Native 0.85 has no TextDecoder (it has TextEncoder since 0.74): the tests
// run without one, as the SDK must.
delete globalThis.TextDecoder;
