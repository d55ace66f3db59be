export {
  createHttpIngestKeyResolver,
  type HttpIngestKeyResolverOptions,
  type IngestKey,
  type IngestKeyResolver,
  MAX_CLOCK_SKEW_SECONDS,
  signIngestBody,
} from '@svc/ingest-auth';
export { type CoreAppDeps, createCoreApp } from './app';
export { type CoreConfig, loadCoreConfig, type StorageConfig } from './config';
export { RECORD_SCHEMAS, RECORD_TYPES, type RecordType } from './ingest/schemas';
export { migrateCore } from './storage/migrate';
export { DEFAULT_RETENTION, type Retention } from './storage/migrations';
export { openStorage } from './storage/open';
export { crashSignature } from './symbolication/crash-signature';
export {
  createDebugFileStore,
  createTempDebugFileStore,
  type DebugFileStore,
} from './symbolication/debug-file-store';
export { createSymbolicator, type Symbolicator } from './symbolication/symbolicator';
export {
  type SymbolicationWorker,
  type SymbolicationWorkerOptions,
  startSymbolicationWorker,
} from './symbolication/worker';
export type { AnyCoreTool, CoreTool, CoreToolContext } from './tools/core-tool';
export { serve } from './tools/core-tool';
export { coreQueries, createCoreToolRegistry } from './tools/registry';
export { type WiredCore, wireCore } from './wiring';
