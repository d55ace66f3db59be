// The behaviour both drivers must share, run by pglite.test.ts and pg.test.ts.
import { MigrationError, runMigrations } from '../migrations';
import type { Postgres } from '../types';

/**
 * Polls until `check` holds (a notification delivered), up to a ceiling far above what a loaded
 * machine needs: waits on the condition, not on a guessed number of milliseconds.
 */
async function until(check: () => boolean, ceilingMs = 120_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ceilingMs) throw new Error(`not done after ${ceilingMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function describePostgresContract(open: () => Promise<Postgres>): void {
  let db: Postgres;
  let n = 0;
  // Each test works in its own tables so the suite shares one (slow to start) database.
  const table = () => `t_${process.pid}_${++n}`;

  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => {
    await db?.close();
  });

  it('answers ping and binds parameters', async () => {
    await db.ping();
    const { rows } = await db.query<{ s: string; n: number }>('SELECT $1::text AS s, $2::int AS n', ['a', 7]);
    expect(rows).toEqual([{ s: 'a', n: 7 }]);
  });

  it('returns int8 as numbers, jsonb as objects, arrays as arrays', async () => {
    const { rows } = await db.query<{ c: number; big: string; j: unknown; a: string[] }>(
      `SELECT count(*) AS c, 9007199254740993::int8 AS big, '{"x":[1,2]}'::jsonb AS j, ARRAY['p','q'] AS a
       FROM generate_series(1, 3)`,
    );
    expect(rows[0]).toEqual({ c: 3, big: '9007199254740993', j: { x: [1, 2] }, a: ['p', 'q'] });
  });

  it('delivers NOTIFY to a listener at commit, not before, and stops when asked', async () => {
    const got: (string | null)[] = [];
    const stop = await db.listen('svc_contract_test', (p) => got.push(p));
    await db.transaction(async (tx) => {
      await tx.query("SELECT pg_notify('svc_contract_test', 'in-tx')");
      await new Promise((r) => setTimeout(r, 50));
      expect(got).toEqual([]);
    });
    await db.query("SELECT pg_notify('svc_contract_test', 'second')");
    await until(() => got.length >= 2);
    expect(got).toEqual(['in-tx', 'second']);
    await stop();
    // Once a listener still on the channel heard 'after stop', it was sent: the stopped one must not
    // have heard it (rather than a guessed pause after which it would have).
    const later: (string | null)[] = [];
    const stopLater = await db.listen('svc_contract_test', (p) => later.push(p));
    await db.query("SELECT pg_notify('svc_contract_test', 'after stop')");
    await until(() => later.length >= 1);
    expect(later).toEqual(['after stop']);
    expect(got).toEqual(['in-tx', 'second']);
    await stopLater();
  });

  it('runs multi-statement scripts with exec', async () => {
    const t = table();
    await db.exec(`CREATE TABLE ${t} (v int); INSERT INTO ${t} VALUES (1), (2);`);
    const { rows } = await db.query<{ s: number }>(`SELECT sum(v)::int AS s FROM ${t}`);
    expect(rows[0]!.s).toBe(3);
  });

  it('commits a transaction and returns its value', async () => {
    const t = table();
    await db.exec(`CREATE TABLE ${t} (v int)`);
    const value = await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${t} VALUES ($1)`, [5]);
      const { rows } = await tx.query<{ v: number }>(`SELECT v FROM ${t}`);
      return rows.length;
    });
    expect(value).toBe(1);
    expect((await db.query(`SELECT v FROM ${t}`)).rows).toEqual([{ v: 5 }]);
  });

  it('rolls a transaction back when its function throws, and rethrows', async () => {
    const t = table();
    await db.exec(`CREATE TABLE ${t} (v int)`);
    const boom = new Error('boom');
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${t} VALUES (1)`);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect((await db.query(`SELECT v FROM ${t}`)).rows).toEqual([]);
  });

  it('rejects with the database error on bad SQL and stays usable', async () => {
    await expect(db.query('SELECT * FROM no_such_table_here')).rejects.toThrow(/no_such_table_here/);
    await db.ping();
  });

  describe('runMigrations', () => {
    it('applies pending migrations once, in order, and records them', async () => {
      const t = table();
      const migrations = [
        { id: `${t}_1`, sql: `CREATE TABLE ${t} (v int); INSERT INTO ${t} VALUES (1);` },
        { id: `${t}_2`, sql: `ALTER TABLE ${t} ADD COLUMN w int DEFAULT 2;` },
      ];
      expect(await runMigrations(db, migrations)).toEqual([`${t}_1`, `${t}_2`]);
      expect(await runMigrations(db, migrations)).toEqual([]);
      const more = [...migrations, { id: `${t}_3`, sql: `INSERT INTO ${t} (v) VALUES (3);` }];
      expect(await runMigrations(db, more)).toEqual([`${t}_3`]);
      expect((await db.query(`SELECT v, w FROM ${t} ORDER BY v`)).rows).toEqual([
        { v: 1, w: 2 },
        { v: 3, w: 2 },
      ]);
      const recorded = await db.query<{ id: string }>(
        `SELECT id FROM schema_migrations WHERE id LIKE $1 ORDER BY id`,
        [`${t}_%`],
      );
      expect(recorded.rows.map((r) => r.id)).toEqual([`${t}_1`, `${t}_2`, `${t}_3`]);
    });

    it('applies each migration once when called concurrently', async () => {
      const t = table();
      const migrations = [
        { id: `${t}_1`, sql: `CREATE TABLE ${t} (v int);` },
        { id: `${t}_2`, sql: `INSERT INTO ${t} VALUES (1);` },
      ];
      await Promise.all([runMigrations(db, migrations), runMigrations(db, migrations)]);
      expect((await db.query(`SELECT v FROM ${t}`)).rows).toEqual([{ v: 1 }]);
    });

    it('rolls back a failing migration entirely and keeps the ones before it', async () => {
      const t = table();
      const migrations = [
        { id: `${t}_1`, sql: `CREATE TABLE ${t} (v int);` },
        { id: `${t}_2`, sql: `INSERT INTO ${t} VALUES (1); SELECT * FROM missing_${t};` },
      ];
      await expect(runMigrations(db, migrations)).rejects.toThrow(/missing_/);
      expect((await db.query(`SELECT v FROM ${t}`)).rows).toEqual([]);
      const recorded = await db.query<{ id: string }>(`SELECT id FROM schema_migrations WHERE id LIKE $1`, [
        `${t}_%`,
      ]);
      expect(recorded.rows.map((r) => r.id)).toEqual([`${t}_1`]);
    });

    it('refuses an applied migration whose text changed, and duplicate ids', async () => {
      const t = table();
      await runMigrations(db, [{ id: `${t}_1`, sql: `CREATE TABLE ${t} (v int);` }]);
      await expect(
        runMigrations(db, [{ id: `${t}_1`, sql: `CREATE TABLE ${t} (v bigint);` }]),
      ).rejects.toBeInstanceOf(MigrationError);
      await expect(
        runMigrations(db, [
          { id: `${t}_2`, sql: 'SELECT 1' },
          { id: `${t}_2`, sql: 'SELECT 2' },
        ]),
      ).rejects.toThrow(/duplicate/);
    });
  });

  it('rejects queries after close', async () => {
    const other = await open();
    await other.close();
    await expect(other.ping()).rejects.toThrow();
  });
}
