export { canonicalJson } from './canonical-json';
export {
  type ChainHead,
  type ChainProblemCode,
  type ChainVerification,
  ChainVerifier,
  type CheckpointRef,
  GENESIS_HASH,
  hashRecord,
  verifyChain,
} from './chain';
export {
  CHECKPOINT_KEY_MIN_LENGTH,
  CHECKPOINT_VERSION,
  type Checkpoint,
  type CheckpointLineVerdict,
  checkpointKeyId,
  checkpointLine,
  readCheckpointLine,
  type SignedCheckpoint,
  signCheckpoint,
  signedCheckpointSchema,
} from './checkpoint';
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
