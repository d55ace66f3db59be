import { createPostgres, type Postgres, type Queryable } from '@svc/postgres';
import { hasPostgresBinaries, startThrowawayCluster, type ThrowawayCluster } from '@svc/postgres/testing';
import { memoryPostgres } from '@svc/postgres/testing/memory';
import { migrateIdentity } from '../migrations';
import { auditEntry, expectedChain, uniqueProject } from '../testing/audit-entries';
import { appendAudit, type KnownHeads, listAudit } from './audit';

/** The store, with its statements counted (in a transaction or not) and its transactions. */
function counting(db: Postgres): { db: Postgres; statements: string[]; transactions: number } {
  const statements: string[] = [];
  let transactions = 0;
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
  return {
    db: {
      ...db,
      ...wrap(db),
      transaction: (fn) => {
        transactions += 1;
        return db.transaction((tx) => fn(wrap(tx)));
      },
    },
    statements,
    get transactions() {
      return transactions;
    },
  };
}

describe('appendAudit', () => {
  let db: Postgres;
  beforeAll(async () => {
    db = await memoryPostgres();
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

function describeKnownHeads(open: () => Promise<Postgres>) {
  let db: Postgres;
  beforeAll(async () => {
    db = await open();
    await migrateIdentity(db);
  });
  afterAll(async () => {
    await db.close();
  });

  it('takes one statement and no transaction once it knows the head, and chains on exactly as the locking path does', async () => {
    const p = uniqueProject();
    const known: KnownHeads = new Map();
    const entries = [1, 2, 3, 4].map((i) => auditEntry(p, i));
    const counted = counting(db);
    await appendAudit(counted.db, entries.slice(0, 1), known);
    expect(counted.statements).toHaveLength(2);
    expect(counted.transactions).toBe(1);
    await appendAudit(counted.db, entries.slice(1, 2), known);
    await appendAudit(counted.db, entries.slice(2), known);
    expect(counted.statements).toHaveLength(4);
    // The statement is whole by itself: BEGIN and COMMIT would be two more round trips.
    expect(counted.transactions).toBe(1);
    expect(known.get(p)).toEqual({ seq: 4, hash: expectedChain(entries)[3]!.hash });
    expect(await listAudit(db, p, { limit: 10, afterSeq: 0 })).toEqual(expectedChain(entries));
  });

  it('finds the head moved by another writer, writes nothing from the stale one, and chains after the real one', async () => {
    const p = uniqueProject();
    const known: KnownHeads = new Map();
    const [a, b, c] = [1, 2, 3].map((i) => auditEntry(p, i));
    await appendAudit(db, [a!], known);
    // Another process (a second identity on the same PostgreSQL) appends: our head is stale.
    await appendAudit(db, [b!], new Map());
    const { db: counted, statements } = counting(db);
    expect((await appendAudit(counted, [c!], known)).written).toBe(1);
    // The one statement from the known head, rolled back; then the locking path's two.
    expect(statements).toHaveLength(3);
    expect(await listAudit(db, p, { limit: 10, afterSeq: 0 })).toEqual(expectedChain([a!, b!, c!]));
    expect(known.get(p)?.seq).toBe(3);
  });

  it('writes a retried request once, also when it comes back with more, in every project it names', async () => {
    const [p, q] = [uniqueProject(), uniqueProject()];
    const known: KnownHeads = new Map();
    const stored = [auditEntry(p, 1), auditEntry(q, 2)];
    await appendAudit(db, stored, known);
    expect((await appendAudit(db, stored, known)).written).toBe(0);
    const fresh = [auditEntry(p, 3), auditEntry(q, 4)];
    expect((await appendAudit(db, [...stored, ...fresh], known)).written).toBe(2);
    expect(await listAudit(db, p, { limit: 10, afterSeq: 0 })).toEqual(
      expectedChain([stored[0]!, fresh[0]!]),
    );
    expect(await listAudit(db, q, { limit: 10, afterSeq: 0 })).toEqual(
      expectedChain([stored[1]!, fresh[1]!]),
    );
    // And from there, one statement again.
    const { db: counted, statements } = counting(db);
    await appendAudit(counted, [auditEntry(p, 5)], known);
    expect(statements).toHaveLength(1);
  });

  it("undoes its one statement whole when a retried request's head moved for records stored before", async () => {
    const p = uniqueProject();
    const known: KnownHeads = new Map();
    const [a, b, c] = [1, 2, 3].map((i) => auditEntry(p, i));
    await appendAudit(db, [a!], known);
    // A retry of [a] alone: the known head moves for it, nothing goes in; the move is undone.
    expect(await appendAudit(db, [a!], known)).toEqual({
      written: 0,
      heads: [{ project_id: p, seq: 1, hash: expectedChain([a!])[0]!.hash }],
    });
    await appendAudit(db, [b!], known);
    // A retry that comes back with more: b is stored, c is not; the statement that moved the head
    // and inserted c is undone, and the locking path writes c once, after b.
    const counted = counting(db);
    expect((await appendAudit(counted.db, [b!, c!], known)).written).toBe(1);
    // The undone statement; the locking path assuming new records (2, rolled back: b is stored);
    // the locking path that looks for stored ids first (3).
    expect(counted.statements).toHaveLength(1 + 2 + 3);
    expect(await listAudit(db, p, { limit: 10, afterSeq: 0 })).toEqual(expectedChain([a!, b!, c!]));
    expect(known.get(p)).toEqual({ seq: 3, hash: expectedChain([a!, b!, c!])[2]!.hash });
  });

  it('commits nothing of a batch when one of its projects has moved on', async () => {
    const [p, q] = [uniqueProject(), uniqueProject()];
    const known: KnownHeads = new Map();
    const first = [auditEntry(p, 1), auditEntry(q, 2)];
    await appendAudit(db, first, known);
    const elsewhere = auditEntry(q, 3);
    await appendAudit(db, [elsewhere], new Map());
    const batch = [auditEntry(p, 4), auditEntry(q, 5)];
    expect((await appendAudit(db, batch, known)).written).toBe(2);
    // p's row from the known head was rolled back with q's miss: p holds each record once.
    expect(await listAudit(db, p, { limit: 10, afterSeq: 0 })).toEqual(expectedChain([first[0]!, batch[0]!]));
    expect(await listAudit(db, q, { limit: 10, afterSeq: 0 })).toEqual(
      expectedChain([first[1]!, elsewhere, batch[1]!]),
    );
  });

  it('keeps one valid chain when two processes append to one project at once', async () => {
    const p = uniqueProject();
    const processes: KnownHeads[] = [new Map(), new Map()];
    const batches = Array.from({ length: 24 }, (_, b) => [1, 2].map((i) => auditEntry(p, b * 2 + i)));
    await Promise.all(
      processes.map(async (known, w) => {
        for (const batch of batches.filter((_, b) => b % 2 === w)) await appendAudit(db, batch, known);
      }),
    );
    const stored = await listAudit(db, p, { limit: 100, afterSeq: 0 });
    expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    expect(new Set(stored.map((r) => r.id))).toEqual(new Set(batches.flat().map((e) => e.id)));
    const inOrder = stored.map((r) => batches.flat().find((e) => e.id === r.id)!);
    expect(stored).toEqual(expectedChain(inOrder));
  });
}

describe('appendAudit from the heads this process knows, on PGlite', () => {
  describeKnownHeads(() => memoryPostgres());
});

// A connection pool: appends of two processes interleave for real.
const describeWithServer = hasPostgresBinaries ? describe : describe.skip;
describeWithServer('appendAudit from the heads this process knows, on PostgreSQL 15', () => {
  let cluster: ThrowawayCluster;
  beforeAll(async () => {
    cluster = await startThrowawayCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  describeKnownHeads(() => createPostgres({ url: cluster.url, maxConnections: 8 }));
});
