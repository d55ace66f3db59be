export {
  auditEntrySchema,
  auditStatus,
  auditTransport,
  storedAuditRecordSchema,
  type AuditEntry,
  type AuditSink,
  type AuditStatus,
  type AuditTransport,
  type StoredAuditRecord,
} from './record';
