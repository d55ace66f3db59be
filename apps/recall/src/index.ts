export { createRecallApp, type RecallAppDeps } from './app';
export { loadRecallConfig, MASTER_KEY_FILE, masterKeyIn, type RecallConfig } from './config';
export { type ConsoleSessions, createIdentityConsoleSessions } from './console-sessions';
export { signedDeviceHeaders } from './device-signing';
export { encodeLogFile, encryptFileBytes } from './file-codec';
export { createFileStore } from './file-store';
export { createKeyStore, parseMasterKey } from './keys';
export { migrateRecall } from './store/migrations';
export { type WiredRecall, wireRecall } from './wiring';
