export { createIdentityApp, type IdentityDeps } from './app';
export { type IdentityConfig, loadIdentityConfig } from './config';
export { identityMigrations, migrateIdentity } from './migrations';
export { type WiredIdentity, wireIdentity } from './wiring';
