import { GENESIS_HASH, hashRecord, verifyChain } from './chain';
import { type AuditEntry, auditEntrySchema, auditTransport, type StoredAuditRecord } from './record';

const entry = (i: number, transport: AuditEntry['transport']): AuditEntry => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  at: '2030-01-01T00:00:00.000Z',
  token_id: 'tok_1',
  user_id: 'usr_1',
  org_id: 'org_1',
  project_id: 'prj_1',
  tool: 'trace.get',
  transport,
  status: 'ok',
  duration_ms: i,
  request_id: `req-${i}`,
  params: { trace_id: 'a'.repeat(32) },
});

describe('audit records', () => {
  it('take the web console as a transport of its own, next to mcp, rest and stdio', () => {
    expect(auditTransport.options).toEqual(['mcp', 'rest', 'stdio', 'console']);
    expect(auditEntrySchema.safeParse(entry(1, 'console')).success).toBe(true);
    expect(auditEntrySchema.safeParse({ ...entry(1, 'rest'), transport: 'browser' }).success).toBe(false);
  });

  it('chain a console record like any other: its transport is hashed, a change of it breaks the chain', () => {
    const records: StoredAuditRecord[] = [];
    let prev = GENESIS_HASH;
    (['rest', 'console', 'mcp'] as const).forEach((transport, i) => {
      const e = entry(i + 1, transport);
      const hash = hashRecord(prev, e, i + 1);
      records.push({ ...e, seq: i + 1, prev_hash: prev, hash });
      prev = hash;
    });
    expect(verifyChain(records)).toEqual({ ok: true, checked: 3 });
    records[1] = { ...records[1]!, transport: 'rest' };
    expect(verifyChain(records)).toMatchObject({
      ok: false,
      checked: 1,
      broken_at_seq: 2,
      code: 'hash_mismatch',
    });
  });
});
