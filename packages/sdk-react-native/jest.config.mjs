import base from '../../jest.base.mjs';

// The SDK's logic in Node (the repo's SWC setup); the React Native adapters run under
// jest.rn.config.cjs, with the react-native preset.
export default { ...base, testPathIgnorePatterns: ['/node_modules/', '\\.rn\\.test\\.ts$'] };
