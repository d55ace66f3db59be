import { z } from 'zod';

// One record per tool call, over any transport (docs/architecture.md, "Audit"). `params` is the input as
// the caller sent it (tool inputs never carry secrets); ids are what the principal resolved to.
// `console`: the web console's own calls (REST with the token identity issues only to the console).
export const auditTransport = z.enum(['mcp', 'rest', 'stdio', 'console']);
export const auditStatus = z.enum(['ok', 'invalid_input', 'not_found', 'error', 'unavailable']);

export const auditEntrySchema = z.strictObject({
  id: z.uuid(),
  at: z.iso.datetime(),
  token_id: z.string().nullable(),
  user_id: z.string().nullable(),
  org_id: z.string().nullable(),
  project_id: z.string().min(1),
  tool: z.string().min(1).max(200),
  transport: auditTransport,
  status: auditStatus,
  duration_ms: z.number().int().nonnegative(),
  request_id: z.string().min(1).max(200),
  params: z.unknown(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export type AuditTransport = z.infer<typeof auditTransport>;
export type AuditStatus = z.infer<typeof auditStatus>;

/** Stored form: the entry plus its place in the project's hash chain. */
export const storedAuditRecordSchema = auditEntrySchema.extend({
  seq: z.number().int().positive(),
  prev_hash: z.string().regex(/^[0-9a-f]{64}$/),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type StoredAuditRecord = z.infer<typeof storedAuditRecordSchema>;

/** Where the pipeline writes. `write` resolves only once the entries are durable. */
export interface AuditSink {
  write(entries: AuditEntry[]): Promise<void>;
}
