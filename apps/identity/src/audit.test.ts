import { createPostgres } from '@svc/postgres';
import { hasPostgresBinaries, startThrowawayCluster, type ThrowawayCluster } from '@svc/postgres/testing';
import { auditEntry as entry, expectedChain, uniqueProject } from './testing/audit-entries';
import { type Harness, startHarness } from './testing/harness';

function describeAuditStore(start: () => Promise<Harness>) {
  let h: Harness;
  beforeAll(async () => {
    h = await start();
  });
  afterAll(async () => {
    await h.close();
  });

  const append = (records: unknown[]) => h.internal('post', '/internal/v1/audit').send({ records });
  const list = async (projectId: string, query = '') =>
    (await h.internal('get', `/internal/v1/audit?project_id=${projectId}${query}`).expect(200)).body;
  const verify = async (projectId: string) =>
    (await h.internal('get', `/internal/v1/audit/verify?project_id=${projectId}`).expect(200)).body;

  it('appends records as a hash chain and serves them oldest first', async () => {
    const p = uniqueProject();
    const first = [entry(p, 1), entry(p, 2), entry(p, 3, { params: undefined })];
    const second = [entry(p, 4, { status: 'invalid_input' })];
    expect((await append(first).expect(201)).body).toEqual({ written: 3 });
    expect((await append(second).expect(201)).body).toEqual({ written: 1 });
    const all = await list(p);
    expect(all).toEqual({ items: expectedChain([...first, ...second]), limit: 100, has_more: false });
    expect(await list(p, '&limit=2')).toEqual({
      items: expectedChain(first).slice(0, 2),
      limit: 2,
      has_more: true,
    });
    expect((await list(p, '&limit=2&after_seq=2')).items.map((r: { seq: number }) => r.seq)).toEqual([3, 4]);
    // Each append anchored where the chain ended after it; verification names the newest.
    const chain = expectedChain([...first, ...second]);
    expect(await verify(p)).toEqual({
      project_id: p,
      ok: true,
      checked: 4,
      checkpoint: { seq: 4, hash: chain[3]!.hash, at: new Date(h.clock.now).toISOString() },
    });
  });

  it('answers an append without an ETag (nobody revalidates it; hashing every answer cost each write)', async () => {
    const res = await append([entry(uniqueProject(), 1)]).expect(201);
    expect(res.headers.etag).toBeUndefined();
  });

  it('keeps one chain per project within one request', async () => {
    const p = uniqueProject();
    const q = uniqueProject();
    const batch = [entry(p, 1), entry(q, 2), entry(p, 3)];
    expect((await append(batch).expect(201)).body).toEqual({ written: 3 });
    expect((await list(p)).items).toEqual(expectedChain([batch[0]!, batch[2]!]));
    expect((await list(q)).items).toEqual(expectedChain([batch[1]!]));
    expect(await verify(q)).toMatchObject({ ok: true, checked: 1, checkpoint: { seq: 1 } });
    expect(await verify(p)).toMatchObject({ ok: true, checked: 2, checkpoint: { seq: 2 } });
  });

  it('writes nothing of an invalid batch', async () => {
    const p = uniqueProject();
    const bad = { ...entry(p, 2), status: 'weird' };
    expect((await append([entry(p, 1), bad])).status).toBe(400);
    expect((await append([{ ...entry(p, 1), project_id: undefined }])).status).toBe(400);
    expect((await append([{ ...entry(p, 1), secret: 'x' }])).status).toBe(400);
    expect((await append([])).status).toBe(400);
    expect((await list(p)).items).toEqual([]);
    expect(await verify(p)).toEqual({ project_id: p, ok: true, checked: 0, checkpoint: null });
  });

  it('does not append a retried record twice', async () => {
    const p = uniqueProject();
    const batch = [entry(p, 1), entry(p, 2)];
    await append(batch).expect(201);
    expect((await append(batch).expect(201)).body).toEqual({ written: 0 });
    expect((await list(p)).items).toEqual(expectedChain(batch));
  });

  it('refuses UPDATE and DELETE on stored records', async () => {
    const p = uniqueProject();
    await append([entry(p, 1)]).expect(201);
    await expect(
      h.db.query(`UPDATE audit_records SET status = 'error' WHERE project_id = $1`, [p]),
    ).rejects.toThrow(/append-only/);
    await expect(h.db.query('DELETE FROM audit_records WHERE project_id = $1', [p])).rejects.toThrow(
      /append-only/,
    );
    expect(await verify(p)).toMatchObject({ ok: true, checked: 1 });
  });

  // Tampering needs the append-only trigger out of the way, as an attacker with DDL rights would do.
  async function tamper(sql: string, params: unknown[]) {
    await h.db.transaction(async (tx) => {
      await tx.query('ALTER TABLE audit_records DISABLE TRIGGER audit_records_no_update_delete');
      await tx.query(sql, params);
      await tx.query('ALTER TABLE audit_records ENABLE TRIGGER audit_records_no_update_delete');
    });
  }

  it('finds a stored record whose params were changed via SQL', async () => {
    const p = uniqueProject();
    await append([entry(p, 1), entry(p, 2), entry(p, 3)]).expect(201);
    await tamper(`UPDATE audit_records SET params = $2 WHERE project_id = $1 AND seq = 2`, [
      p,
      JSON.stringify({ search: 'innocent' }),
    ]);
    expect(await verify(p)).toMatchObject({ ok: false, checked: 1, broken_at_seq: 2, code: 'hash_mismatch' });
  });

  it('finds a changed status, and deleted records in the middle and at the end', async () => {
    const [a, b, c] = [uniqueProject(), uniqueProject(), uniqueProject()];
    for (const p of [a, b, c]) await append([entry(p, 1), entry(p, 2), entry(p, 3)]).expect(201);
    await tamper(
      `UPDATE audit_records SET status = 'ok', tool = 'log.recent' WHERE project_id = $1 AND seq = 3`,
      [a],
    );
    expect(await verify(a)).toMatchObject({ ok: false, checked: 2, broken_at_seq: 3 });
    await tamper('DELETE FROM audit_records WHERE project_id = $1 AND seq = 2', [b]);
    expect(await verify(b)).toMatchObject({ ok: false, checked: 1, broken_at_seq: 2 });
    await tamper('DELETE FROM audit_records WHERE project_id = $1 AND seq = 3', [c]);
    expect(await verify(c)).toMatchObject({ ok: false, checked: 2, broken_at_seq: 3 });
  });

  it('keeps a valid chain under concurrent writes to one project', async () => {
    const p = uniqueProject();
    const batches = Array.from({ length: 16 }, (_, b) =>
      Array.from({ length: 4 }, (_, i) => entry(p, b * 4 + i)),
    );
    const answers = await Promise.all(batches.map((batch) => append(batch)));
    expect(answers.map((r) => r.status)).toEqual(batches.map(() => 201));
    const stored = (await list(p, '&limit=1000')).items as { id: string; seq: number }[];
    expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: 64 }, (_, i) => i + 1));
    expect(new Set(stored.map((r) => r.id))).toEqual(new Set(batches.flat().map((e) => e.id)));
    // Each request's records stay contiguous: one transaction per request.
    for (const batch of batches) {
      const seqs = batch.map((e) => stored.find((r) => r.id === e.id)!.seq);
      expect(seqs).toEqual([seqs[0]!, seqs[0]! + 1, seqs[0]! + 2, seqs[0]! + 3]);
    }
    expect(await verify(p)).toMatchObject({ ok: true, checked: 64, checkpoint: { seq: 64 } });
  });

  it('requires project_id on reads of records, and a non-empty one on verify', async () => {
    expect((await h.internal('get', '/internal/v1/audit')).status).toBe(400);
    expect((await h.internal('get', '/internal/v1/audit?project_id=x&limit=0')).status).toBe(400);
    expect((await h.internal('get', '/internal/v1/audit/verify?project_id=')).status).toBe(400);
  });
}

describe('audit store on PGlite', () => {
  describeAuditStore(() => startHarness());
});

// The per-project lock matters most with a real connection pool, where transactions interleave.
const describeWithServer = hasPostgresBinaries ? describe : describe.skip;
describeWithServer('audit store on PostgreSQL 15', () => {
  let cluster: ThrowawayCluster;
  beforeAll(async () => {
    cluster = await startThrowawayCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  describeAuditStore(async () => startHarness(await createPostgres({ url: cluster.url, maxConnections: 8 })));
});
