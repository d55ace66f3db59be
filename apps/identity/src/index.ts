export { createIdentityApp, type IdentityDeps } from './app';
export { type IdentityConfig, loadIdentityConfig } from './config';
export {
  createInvalidationHub,
  DEFAULT_INVALIDATION_TIMING,
  type InvalidationHub,
  type InvalidationTiming,
} from './invalidation/hub';
export { identityMigrations, migrateIdentity } from './migrations';
export { type WiredIdentity, wireIdentity } from './wiring';
