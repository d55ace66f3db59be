export { canonicalJson } from './canonical-json';
export {
  type ChainHead,
  type ChainVerification,
  ChainVerifier,
  GENESIS_HASH,
  hashRecord,
  verifyChain,
} from './chain';
export {
  type AuditEntry,
  type AuditSink,
  type AuditStatus,
  type AuditTransport,
  auditEntrySchema,
  auditStatus,
  auditTransport,
  type StoredAuditRecord,
  storedAuditRecordSchema,
} from './record';
