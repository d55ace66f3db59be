export { createHttpAuditSink } from './audit-sink';
export { type AuditBatchOptions, createBatchingAuditSink } from './batching-audit-sink';
export {
  type CachingIdentityClient,
  createCachingIdentityClient,
  type TokenCacheOptions,
} from './caching-identity-client';
export {
  createIdentityClient,
  fetchOrgCapabilities,
  type IdentityClient,
  type IntrospectOptions,
} from './identity-client';
export type { InvalidationEvent, InvalidationTarget } from './invalidation-events';
export {
  createInvalidationSubscriber,
  type InvalidationSubscriber,
  type InvalidationSubscriberOptions,
} from './invalidation-subscriber';
