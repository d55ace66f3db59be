// The SDK in Node: the same logic as on a phone, with files, node:crypto, zlib and a simulated
// app's lifecycle and errors (tests, and simulated apps sending to a real stack).
export type { MobilePlatform } from '../platform';
export { createMobileSdk, type MobileSdk, type MobileSdkOptions, type SdkError, type SdkStats } from '../sdk';
export { fileStorage } from './file-storage';
export { nodeCompression, nodeCrypto } from './node-crypto';
export { type NodePlatformOptions, nodeFetch, nodePlatform } from './node-platform';
export { FATAL_WAIT_MS, type SimulatedApp, simulatedApp } from './simulated-app';
