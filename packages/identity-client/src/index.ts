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
export {
  createInvalidationSubscriber,
  type InvalidationEvent,
  type InvalidationSubscriber,
  type InvalidationSubscriberOptions,
  type InvalidationTarget,
} from './invalidation-subscriber';
