export { createIdentityApp, type IdentityDeps } from './app';
export type { CheckpointEntry, CheckpointStore } from './checkpoints/checkpoint-store';
export { openFileCheckpointStore } from './checkpoints/file-checkpoint-store';
export type { AuditVerification, ProjectVerification } from './checkpoints/verify';
export { type AuditCheckpointConfig, type IdentityConfig, loadIdentityConfig } from './config';
export { createInvalidationHub, type InvalidationHub } from './invalidation/hub';
export { DEFAULT_INVALIDATION_TIMING, type InvalidationTiming } from './invalidation/timing';
export { identityMigrations, migrateIdentity } from './migrations';
export { type WiredIdentity, wireIdentity } from './wiring';
