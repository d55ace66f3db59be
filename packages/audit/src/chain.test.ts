import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import { ChainVerifier, GENESIS_HASH, hashRecord, verifyChain } from './chain';
import type { AuditEntry, StoredAuditRecord } from './record';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function entry(i: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    at: `2030-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
    token_id: 'tok_1',
    user_id: null,
    org_id: 'org_1',
    project_id: 'prj_1',
    tool: 'log.search',
    transport: 'rest',
    status: 'ok',
    duration_ms: i,
    request_id: `req-${i}`,
    params: { search: `needle ${i}`, limit: 20 },
    ...overrides,
  };
}

function chainOf(count: number): StoredAuditRecord[] {
  const records: StoredAuditRecord[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= count; seq++) {
    const e = entry(seq);
    const hash = hashRecord(prev, e, seq);
    records.push({ ...e, seq, prev_hash: prev, hash });
    prev = hash;
  }
  return records;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and follows JSON rules otherwise', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"z":1}]},"b":1}',
    );
    expect(canonicalJson([undefined, Number.NaN, null])).toBe('[null,null,null]');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson({ '10': 1, '2': 2, a: 3 })).toBe('{"10":1,"2":2,"a":3}');
  });
});

describe('hashRecord', () => {
  it('is SHA-256 over the sorted-key JSON of the entry, seq and prev_hash', () => {
    const e = entry(7);
    const text =
      `{"at":"2030-01-01T00:00:07.000Z","duration_ms":7,"id":"00000000-0000-4000-8000-000000000007",` +
      `"org_id":"org_1","params":{"limit":20,"search":"needle 7"},"prev_hash":"${GENESIS_HASH}",` +
      `"project_id":"prj_1","request_id":"req-7","seq":3,"status":"ok","token_id":"tok_1",` +
      `"tool":"log.search","transport":"rest","user_id":null}`;
    expect(hashRecord(GENESIS_HASH, e, 3)).toBe(sha256(text));
  });

  it('does not depend on key order, ignores stored-only fields, depends on everything hashed', () => {
    const e = entry(1);
    const reordered = JSON.parse(JSON.stringify({ ...e, params: { limit: 20, search: 'needle 1' } }));
    const base = hashRecord(GENESIS_HASH, e, 1);
    expect(hashRecord(GENESIS_HASH, reordered, 1)).toBe(base);
    expect(hashRecord(GENESIS_HASH, { ...e, hash: 'x', seq: 9 } as AuditEntry, 1)).toBe(base);
    expect(hashRecord(GENESIS_HASH, e, 2)).not.toBe(base);
    expect(hashRecord('1'.repeat(64), e, 1)).not.toBe(base);
    expect(hashRecord(GENESIS_HASH, { ...e, status: 'error' }, 1)).not.toBe(base);
  });

  it('GENESIS_HASH is 64 zeros', () => {
    expect(GENESIS_HASH).toBe('0000000000000000000000000000000000000000000000000000000000000000');
  });
});

describe('verifyChain', () => {
  it('accepts an intact chain and an empty one', () => {
    expect(verifyChain(chainOf(5))).toEqual({ ok: true, checked: 5 });
    expect(verifyChain([])).toEqual({ ok: true, checked: 0 });
    const records = chainOf(5);
    expect(verifyChain(records, { head: { seq: 5, hash: records[4]!.hash } })).toEqual({
      ok: true,
      checked: 5,
    });
  });

  it('finds changed params', () => {
    const records = chainOf(5);
    records[2] = { ...records[2]!, params: { search: 'something else', limit: 20 } };
    expect(verifyChain(records)).toMatchObject({ ok: false, checked: 2, broken_at_seq: 3 });
  });

  it('finds a changed status', () => {
    const records = chainOf(5);
    records[3] = { ...records[3]!, status: 'error' };
    const result = verifyChain(records);
    expect(result).toMatchObject({ ok: false, checked: 3, broken_at_seq: 4, code: 'hash_mismatch' });
    expect(result.reason).toMatch(/hash/);
  });

  it('finds a record changed and re-hashed at the next link', () => {
    const records = chainOf(5);
    const forged = { ...records[1]!, tool: 'crash.get' };
    records[1] = { ...forged, hash: hashRecord(forged.prev_hash, forged, 2) };
    expect(verifyChain(records)).toMatchObject({ ok: false, checked: 2, broken_at_seq: 3 });
  });

  it('finds a deleted record in the middle, at the start, and at the end given the head', () => {
    const records = chainOf(5);
    expect(verifyChain([...records.slice(0, 2), ...records.slice(3)])).toMatchObject({
      ok: false,
      checked: 2,
      broken_at_seq: 3,
      reason: 'record 3 is missing',
      code: 'record_missing',
    });
    expect(verifyChain(records.slice(1))).toMatchObject({ ok: false, checked: 0, broken_at_seq: 1 });
    const head = { seq: 5, hash: records[4]!.hash };
    expect(verifyChain(records.slice(0, 4), { head })).toMatchObject({
      ok: false,
      checked: 4,
      broken_at_seq: 5,
      code: 'record_missing',
    });
    expect(verifyChain(records, { head: { seq: 4, hash: records[3]!.hash } })).toMatchObject({
      ok: false,
      broken_at_seq: 4,
      code: 'head_mismatch',
    });
  });

  it('finds swapped records', () => {
    const records = chainOf(4);
    expect(verifyChain([records[0]!, records[2]!, records[1]!, records[3]!])).toMatchObject({
      ok: false,
      broken_at_seq: 2,
      code: 'record_missing',
    });
    expect(verifyChain([records[0]!, records[1]!, records[1]!])).toMatchObject({
      ok: false,
      broken_at_seq: 3,
      code: 'record_out_of_order',
    });
  });

  it('gives the same answer when fed in pieces', () => {
    const records = chainOf(7);
    records[5] = { ...records[5]!, duration_ms: 999 };
    const verifier = new ChainVerifier();
    expect(verifier.add(records.slice(0, 3))).toBe(true);
    expect(verifier.add(records.slice(3))).toBe(false);
    expect(verifier.result()).toEqual(verifyChain(records));
  });
});
