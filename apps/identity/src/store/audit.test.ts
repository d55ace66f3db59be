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

  it("takes three statements for one project's append (lock the head, skip stored ids, insert and move the head)", async () => {
    const p = uniqueProject();
    const entries = [auditEntry(p, 1), auditEntry(p, 2)];
    const { db: counted, statements } = counting(db);
    expect((await appendAudit(counted, entries)).written).toBe(2);
    expect(statements).toHaveLength(3);
    const stored = await listAudit(db, p, { limit: 10, afterSeq: 0 });
    expect(stored).toEqual(expectedChain(entries));
  });

  it('leaves the head where it was when every record is already stored, and chains on after it', async () => {
    const p = uniqueProject();
    const first = [auditEntry(p, 1), auditEntry(p, 2)];
    await appendAudit(db, first);
    const { db: counted, statements } = counting(db);
    const again = await appendAudit(counted, first);
    expect(again).toEqual({
      written: 0,
      heads: [{ project_id: p, seq: 2, hash: expectedChain(first)[1]!.hash }],
    });
    expect(statements).toHaveLength(2);
    const next = auditEntry(p, 3);
    await appendAudit(db, [next]);
    expect(await listAudit(db, p, { limit: 10, afterSeq: 0 })).toEqual(expectedChain([...first, next]));
  });

  it('chains a batch larger than one INSERT across its statements', async () => {
    const p = uniqueProject();
    const entries = Array.from({ length: 1001 }, (_, i) => auditEntry(p, i + 1));
    expect((await appendAudit(db, entries)).written).toBe(1001);
    expect(await listAudit(db, p, { limit: 2000, afterSeq: 0 })).toEqual(expectedChain(entries));
  });
});
