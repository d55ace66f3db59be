import { createPostgres, type Postgres, type Queryable } from '@svc/postgres';
import { migrateIdentity } from '../migrations';
import { auditEntry, expectedChain, uniqueProject } from '../testing/audit-entries';
import { appendAudit, listAudit } from './audit';

/** The store, with the statements each transaction runs counted. */
function counting(db: Postgres): { db: Postgres; statements: string[] } {
  const statements: string[] = [];
  const wrap = (q: Queryable): Queryable => ({
    query: (sql, params) => {
      statements.push(sql);
      return q.query(sql, params);
    },
    exec: (sql) => {
      statements.push(sql);
      return q.exec(sql);
    },
  });
  return { db: { ...db, transaction: (fn) => db.transaction((tx) => fn(wrap(tx))) }, statements };
}

describe('appendAudit', () => {
  let db: Postgres;
  beforeAll(async () => {
    db = await createPostgres({ dataDir: ':memory:' });
    await migrateIdentity(db);
  });
  afterAll(async () => {
    await db.close();
  });

  it("takes two statements for one project's new records (lock the head; insert them and move the head)", async () => {
    const p = uniqueProject();
    const entries = [auditEntry(p, 1), auditEntry(p, 2)];
    const { db: counted, statements } = counting(db);
    expect((await appendAudit(counted, entries)).written).toBe(2);
    expect(statements).toHaveLength(2);
    expect(await listAudit(db, p, { limit: 10, afterSeq: 0 })).toEqual(expectedChain(entries));
  });

  it('leaves the head where it was when every record is already stored, and chains on after it', async () => {
    const p = uniqueProject();
    const first = [auditEntry(p, 1), auditEntry(p, 2)];
    await appendAudit(db, first);
    const again = await appendAudit(db, first);
    expect(again).toEqual({
      written: 0,
      heads: [{ project_id: p, seq: 2, hash: expectedChain(first)[1]!.hash }],
    });
    const next = auditEntry(p, 3);
    await appendAudit(db, [next]);
    expect(await listAudit(db, p, { limit: 10, afterSeq: 0 })).toEqual(expectedChain([...first, next]));
  });

  it('appends only the new records of a request retried with more, in every project it names', async () => {
    const [p, q] = [uniqueProject(), uniqueProject()];
    const stored = [auditEntry(p, 1), auditEntry(q, 2)];
    await appendAudit(db, stored);
    const fresh = [auditEntry(p, 3), auditEntry(q, 4), auditEntry(q, 5)];
    expect((await appendAudit(db, [...stored, ...fresh])).written).toBe(3);
    expect(await listAudit(db, p, { limit: 10, afterSeq: 0 })).toEqual(
      expectedChain([stored[0]!, fresh[0]!]),
    );
    expect(await listAudit(db, q, { limit: 10, afterSeq: 0 })).toEqual(
      expectedChain([stored[1]!, fresh[1]!, fresh[2]!]),
    );
  });

  it('chains a batch larger than one INSERT across its statements, and a retry of it with one more', async () => {
    const p = uniqueProject();
    const entries = Array.from({ length: 1001 }, (_, i) => auditEntry(p, i + 1));
    expect((await appendAudit(db, entries)).written).toBe(1001);
    const more = auditEntry(p, 1002);
    expect((await appendAudit(db, [...entries, more])).written).toBe(1);
    expect(await listAudit(db, p, { limit: 2000, afterSeq: 0 })).toEqual(expectedChain([...entries, more]));
  });
});
