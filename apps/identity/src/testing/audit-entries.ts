// Test support: audit entries as a gateway would send them, and the chain they must form.
import { randomUUID } from 'node:crypto';
import { type AuditEntry, GENESIS_HASH, hashRecord } from '@svc/audit';

export function auditEntry(projectId: string, i: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: randomUUID(),
    at: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString(),
    token_id: 'tok_a',
    user_id: 'usr_a',
    org_id: 'org_a',
    project_id: projectId,
    tool: i % 2 ? 'log.search' : 'crash.stats',
    transport: i % 3 ? 'mcp' : 'rest',
    status: 'ok',
    duration_ms: i,
    request_id: `req-${i}`,
    params: { search: `term ${i}`, nested: { z: [1, 'two', null], a: true } },
    ...overrides,
  };
}

/** The chain the stored records must form, computed from the entries as sent. */
export function expectedChain(entries: AuditEntry[]) {
  let prev = GENESIS_HASH;
  return entries.map((e, i) => {
    const hash = hashRecord(prev, e, i + 1);
    const record = { ...e, seq: i + 1, prev_hash: prev, hash };
    prev = hash;
    return record;
  });
}

export const uniqueProject = (prefix = 'prj_audit') => `${prefix}_${randomUUID().slice(0, 8)}`;
