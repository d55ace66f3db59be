import { appendFile, stat as fileStat, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointKeyId, checkpointLine, GENESIS_HASH } from '@svc/audit';
import { createNoopMetrics } from '@svc/metrics';
import { createPostgres, type Postgres } from '@svc/postgres';
import { hasPostgresBinaries, startThrowawayCluster, type ThrowawayCluster } from '@svc/postgres/testing';
import { memoryPostgres } from '@svc/postgres/testing/memory';
import request from 'supertest';
import { createIdentityApp } from './app';
import type { CheckpointStore } from './checkpoints/checkpoint-store';
import { loadIdentityConfig } from './config';
import { migrateIdentity } from './migrations';
import { verifyAudit } from './store/audit';
import { auditEntry as entry, expectedChain, uniqueProject } from './testing/audit-entries';
import { openThrowawayCheckpointStore } from './testing/checkpoints';
import { type Harness, type LogLine, recordingLogger, SECRET, startHarness } from './testing/harness';
import { wireIdentity } from './wiring';

// The finding this guards against: with database superuser rights, disable the append-only
// trigger, delete the newest records and move the chain head back to the last one kept. The chain
// in the database is then complete and consistent; only the checkpoints outside it can tell.

type Internal = (method: 'get' | 'post', path: string) => request.Test;

const appendVia = (internal: Internal) => async (records: unknown[]) =>
  (await internal('post', '/internal/v1/audit').send({ records }).expect(201)).body as { written: number };
const verifyVia = (internal: Internal) => async (projectId?: string) =>
  (
    await internal(
      'get',
      `/internal/v1/audit/verify${projectId === undefined ? '' : `?project_id=${projectId}`}`,
    ).expect(200)
  ).body;

/** What a superuser can do: every trigger of audit_records off for the statements of `fn`. */
async function asSuperuser(db: Postgres, statements: [sql: string, params: unknown[]][]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('ALTER TABLE audit_records DISABLE TRIGGER ALL');
    for (const [sql, params] of statements) await tx.query(sql, params);
    await tx.query('ALTER TABLE audit_records ENABLE TRIGGER ALL');
  });
}

/** The attack: records after `keep` deleted, the head rewound to record `keep`. */
async function cutTail(db: Postgres, projectId: string, keep: number): Promise<void> {
  const { rows } = await db.query<{ hash: string }>(
    'SELECT hash FROM audit_records WHERE project_id = $1 AND seq = $2',
    [projectId, keep],
  );
  await asSuperuser(db, [
    ['DELETE FROM audit_records WHERE project_id = $1 AND seq > $2', [projectId, keep]],
    [
      'UPDATE audit_chain_heads SET last_seq = $2, last_hash = $3 WHERE project_id = $1',
      [projectId, keep, rows[0]?.hash ?? GENESIS_HASH],
    ],
  ]);
}

function describeAnchoring(start: () => Promise<Harness>) {
  let h: Harness;
  let append: ReturnType<typeof appendVia>;
  let verify: ReturnType<typeof verifyVia>;
  beforeAll(async () => {
    h = await start();
    append = appendVia(h.internal);
    verify = verifyVia(h.internal);
  });
  afterAll(async () => {
    await h.close();
  });

  it('finds the newest record deleted and the head rewound, which the database alone cannot', async () => {
    const p = uniqueProject();
    const entries = [1, 2, 3, 4, 5].map((i) => entry(p, i));
    await append(entries.slice(0, 2));
    await append(entries.slice(2, 4));
    await append(entries.slice(4));
    const chain = expectedChain(entries);
    expect(await verify(p)).toMatchObject({ ok: true, checked: 5, checkpoint: { seq: 5 } });

    await cutTail(h.db, p, 4);

    // The chain in the database is consistent: this is what verification said before checkpoints.
    expect(await verifyAudit(h.db, p)).toEqual({ ok: true, checked: 4 });
    const answer = await verify(p);
    expect(answer).toEqual({
      project_id: p,
      ok: false,
      checked: 4,
      broken_at_seq: 5,
      code: 'behind_checkpoint',
      reason: expect.stringMatching(/^record 5 is missing: the database chain ends at seq 4/),
      checkpoint: { seq: 5, hash: chain[4]!.hash, at: expect.any(String) },
      missing_from_seq: 5,
      missing_to_seq: 5,
      problems: [{ code: 'behind_checkpoint', broken_at_seq: 5, reason: answer.reason }],
    });
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        obj: expect.objectContaining({
          event: 'audit_chain_broken',
          project_id: p,
          code: 'behind_checkpoint',
        }),
      }),
    );
  });

  it('names the whole range when several appends were cut off', async () => {
    const p = uniqueProject();
    const entries = Array.from({ length: 9 }, (_, i) => entry(p, i + 1));
    await append(entries.slice(0, 3));
    await append(entries.slice(3, 7));
    await append(entries.slice(7));
    await cutTail(h.db, p, 3);
    expect(await verify(p)).toMatchObject({
      ok: false,
      checked: 3,
      code: 'behind_checkpoint',
      reason: expect.stringMatching(/^records 4-9 are missing/),
      checkpoint: { seq: 9 },
      missing_from_seq: 4,
      missing_to_seq: 9,
    });
  });

  it('finds a cut chain that was appended to again, though it now ends past every checkpoint', async () => {
    const p = uniqueProject();
    const entries = [1, 2, 3, 4].map((i) => entry(p, i));
    await append(entries.slice(0, 2));
    await append(entries.slice(2));
    const before = expectedChain(entries);
    await cutTail(h.db, p, 2);
    // The next appends reuse seq 3 and 4 and go beyond: the newest checkpoint is consistent.
    await append([entry(p, 13), entry(p, 14), entry(p, 15)]);
    const answer = await verify(p);
    expect(answer).toMatchObject({
      ok: false,
      checked: 5,
      broken_at_seq: 4,
      code: 'checkpoint_mismatch',
      checkpoint: { seq: 5 },
    });
    expect(answer.reason).toContain(`${before[3]!.hash.slice(0, 12)}… in the checkpoint`);
    expect(answer.missing_from_seq).toBeUndefined();
  });

  it('fails a project whose chain and head were deleted outright, alone and among all projects', async () => {
    const p = uniqueProject();
    await append([entry(p, 1), entry(p, 2), entry(p, 3)]);
    await asSuperuser(h.db, [
      ['DELETE FROM audit_records WHERE project_id = $1', [p]],
      ['DELETE FROM audit_chain_heads WHERE project_id = $1', [p]],
    ]);
    expect(await verifyAudit(h.db, p)).toEqual({ ok: true, checked: 0 });
    const expected = {
      project_id: p,
      ok: false,
      checked: 0,
      code: 'behind_checkpoint',
      reason: expect.stringMatching(/^records 1-3 are missing: the database holds no record of this project/),
      checkpoint: expect.objectContaining({ seq: 3 }),
      missing_from_seq: 1,
      missing_to_seq: 3,
    };
    expect(await verify(p)).toMatchObject(expected);
    const all = await verify();
    expect(all.ok).toBe(false);
    expect(all.projects).toContainEqual(expect.objectContaining(expected));
  });

  it('fails a project whose head row was deleted or moved back over records that remain', async () => {
    const [gone, moved] = [uniqueProject(), uniqueProject()];
    for (const p of [gone, moved]) await append([entry(p, 1), entry(p, 2)]);
    await h.db.query('DELETE FROM audit_chain_heads WHERE project_id = $1', [gone]);
    const { rows } = await h.db.query<{ hash: string }>(
      'SELECT hash FROM audit_records WHERE project_id = $1 AND seq = 1',
      [moved],
    );
    await h.db.query('UPDATE audit_chain_heads SET last_seq = 1, last_hash = $2 WHERE project_id = $1', [
      moved,
      rows[0]!.hash,
    ]);
    expect(await verify(gone)).toMatchObject({ ok: false, checked: 2, code: 'head_missing' });
    expect(await verify(moved)).toMatchObject({
      ok: false,
      checked: 1,
      broken_at_seq: 2,
      code: 'head_mismatch',
    });
    const all = await verify();
    expect(all.projects).toContainEqual(expect.objectContaining({ project_id: gone, code: 'head_missing' }));
  });

  it('raises no false alarm while appends go on', async () => {
    const p = uniqueProject();
    await append([entry(p, 0)]);
    let i = 1;
    const writers = Array.from({ length: 4 }, async () => {
      for (let n = 0; n < 10; n++) await append([entry(p, i++), entry(p, i++)]);
    });
    const answers: { ok: boolean; reason?: string }[] = [];
    const checking = (async () => {
      for (let n = 0; n < 8; n++) answers.push(await verify(p));
    })();
    await Promise.all([...writers, checking]);
    expect(answers.filter((a) => !a.ok)).toEqual([]);
    expect(await verify(p)).toMatchObject({ ok: true, checked: 81, checkpoint: { seq: 81 } });
  });

  it('keeps the key out of every database table', async () => {
    const p = uniqueProject();
    await append([entry(p, 1)]);
    const { rows: tables } = await h.db.query<{ table_schema: string; table_name: string }>(
      `SELECT table_schema, table_name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['audit_records', 'audit_chain_heads']),
    );
    for (const { table_schema, table_name } of tables) {
      const { rows } = await h.db.query<{ row: string }>(
        `SELECT t::text AS row FROM "${table_schema}"."${table_name}" t`,
      );
      for (const { row } of rows) expect(row).not.toContain(h.checkpointKey);
    }
    const log = await readFile(h.checkpoints.location, 'utf8');
    expect(log).toContain(p);
    expect(log).not.toContain(h.checkpointKey);
  });
}

describe('audit checkpoints on PGlite', () => {
  describeAnchoring(() => startHarness());
});

const describeWithServer = hasPostgresBinaries ? describe : describe.skip;
describeWithServer('audit checkpoints on PostgreSQL 15', () => {
  let cluster: ThrowawayCluster;
  beforeAll(async () => {
    cluster = await startThrowawayCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  describeAnchoring(async () => startHarness(await createPostgres({ url: cluster.url, maxConnections: 8 })));
});

describe('the checkpoint log as verification reads it', () => {
  let h: Harness;
  let append: ReturnType<typeof appendVia>;
  let verify: ReturnType<typeof verifyVia>;
  beforeEach(async () => {
    h = await startHarness();
    append = appendVia(h.internal);
    verify = verifyVia(h.internal);
  });
  afterEach(async () => {
    await h.close();
  });
  const at = '2030-01-01T00:00:00.000Z';

  it('answers every project at once, with where the log is', async () => {
    const [p, q] = [uniqueProject('prj_a'), uniqueProject('prj_b')];
    await append([entry(p, 1), entry(q, 1), entry(p, 2)]);
    expect(await verify()).toEqual({
      ok: true,
      projects: [
        { project_id: p, ok: true, checked: 2, checkpoint: { seq: 2, hash: expect.any(String), at } },
        { project_id: q, ok: true, checked: 1, checkpoint: { seq: 1, hash: expect.any(String), at } },
      ],
      checkpoint_log: {
        location: h.checkpoints.location,
        lines: 2,
        unreadable: [],
        unreadable_lines: 0,
        warnings: [],
      },
    });
  });

  it('reports lines whose signature does not verify as tampering', async () => {
    const p = uniqueProject();
    const stranger = uniqueProject('prj_stranger');
    await append([entry(p, 1), entry(p, 2)]);
    const [line] = (await readFile(h.checkpoints.location, 'utf8')).trimEnd().split('\n');
    const pushedAhead = JSON.stringify({ ...JSON.parse(line!), seq: 40 });
    const otherKey = checkpointLine('x'.repeat(40), {
      project_id: stranger,
      seq: 3,
      hash: 'e'.repeat(64),
      at,
    });
    await appendFile(h.checkpoints.location, `${pushedAhead}\n${otherKey}\n`);

    const answer = await verify(p);
    expect(answer).toMatchObject({ ok: false, checked: 2, code: 'checkpoint_forged', broken_at_seq: 40 });
    expect(answer.reason).toBe(
      'line 2 of the checkpoint log names this project at seq 40 but cannot be trusted: the signature does not match its content',
    );
    // The valid checkpoint still counts: nothing was cut.
    expect(answer.checkpoint).toMatchObject({ seq: 2 });
    expect(answer.missing_from_seq).toBeUndefined();

    const all = await verify();
    expect(all.ok).toBe(false);
    const byId = Object.fromEntries(all.projects.map((x: { project_id: string }) => [x.project_id, x]));
    expect(byId[stranger]).toMatchObject({
      ok: false,
      checked: 0,
      checkpoint: null,
      code: 'checkpoint_forged',
    });
    expect(byId[stranger].reason).toContain(
      `signed with another key (key id ${checkpointKeyId('x'.repeat(40))}`,
    );
  });

  it('skips a torn last line with a warning, and the next append cuts it off', async () => {
    const p = uniqueProject();
    await append([entry(p, 1)]);
    const whole = checkpointLine(h.checkpointKey, { project_id: p, seq: 2, hash: 'a'.repeat(64), at });
    await appendFile(h.checkpoints.location, whole.slice(0, 50));

    const answer = await verify(p);
    expect(answer).toMatchObject({ ok: true, checked: 1, checkpoint: { seq: 1 } });
    expect(answer.warnings).toEqual([
      `line 2 of ${h.checkpoints.location} is incomplete (50 bytes, a write cut short by a crash, never acknowledged): skipped`,
    ]);
    expect((await verify()).checkpoint_log.warnings).toHaveLength(1);
    expect(h.logs).toContainEqual(expect.objectContaining({ level: 'warn', msg: answer.warnings[0] }));

    await append([entry(p, 2)]);
    const lines = (await readFile(h.checkpoints.location, 'utf8')).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        obj: expect.objectContaining({ event: 'audit_checkpoint_torn_line', dropped_bytes: 50 }),
      }),
    );
    expect(await verify(p)).toEqual({
      project_id: p,
      ok: true,
      checked: 2,
      checkpoint: { seq: 2, hash: expect.any(String), at },
    });
  });

  it("fails on a line that is not a checkpoint at all: it may have been anyone's", async () => {
    const p = uniqueProject();
    await append([entry(p, 1)]);
    await appendFile(h.checkpoints.location, 'garbage that is not json\n');
    await append([entry(p, 2)]);
    expect(await verify(p)).toMatchObject({
      ok: false,
      checked: 2,
      code: 'checkpoint_log_unreadable',
      checkpoint: { seq: 2 },
      reason: expect.stringContaining('line 2: not JSON'),
    });
    const all = await verify();
    expect(all).toMatchObject({
      ok: false,
      projects: [{ project_id: p, ok: true }],
      checkpoint_log: { lines: 3, unreadable: [{ line: 2, reason: 'not JSON' }], unreadable_lines: 1 },
    });
  });
});

describe('a checkpoint that cannot be written', () => {
  it('answers 503 with the records committed, and the retry anchors them', async () => {
    const db = await memoryPostgres();
    await migrateIdentity(db);
    const real = await openThrowawayCheckpointStore();
    let failures = 1;
    const flaky: CheckpointStore = {
      location: real.location,
      read: () => real.read(),
      close: () => real.close(),
      append: (checkpoints) =>
        failures-- > 0 ? Promise.reject(new Error('EIO: i/o error, write')) : real.append(checkpoints),
    };
    const logs: LogLine[] = [];
    const app = createIdentityApp({
      db,
      internalSecret: SECRET,
      logger: recordingLogger(logs),
      metrics: createNoopMetrics(),
      checkpoints: flaky,
    });
    const internal: Internal = (method, path) => request(app)[method](path).set('X-Internal-Secret', SECRET);
    try {
      const p = uniqueProject();
      const batch = [entry(p, 1), entry(p, 2)];
      const failed = await internal('post', '/internal/v1/audit').send({ records: batch });
      expect(failed.status).toBe(503);
      expect(failed.body).toMatchObject({ error: 'backend_unavailable' });
      expect(logs).toContainEqual(
        expect.objectContaining({
          level: 'error',
          obj: expect.objectContaining({ event: 'audit_checkpoint_failed' }),
        }),
      );
      // Committed but not anchored: not a break, and visible as such.
      expect(await verifyVia(internal)(p)).toEqual({ project_id: p, ok: true, checked: 2, checkpoint: null });
      expect(await appendVia(internal)(batch)).toEqual({ written: 0 });
      expect(await verifyVia(internal)(p)).toMatchObject({ ok: true, checked: 2, checkpoint: { seq: 2 } });
    } finally {
      await real.close();
      await db.close();
    }
  });
});

describe('identity restarted on the same data dir', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'svc-identity-restart-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const env = () => ({ SVC_INTERNAL_SECRET: SECRET, SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' });
  const start = (extra: Record<string, string> = {}) =>
    wireIdentity(loadIdentityConfig({ ...env(), ...extra }), {
      logger: recordingLogger([]),
      metrics: createNoopMetrics(),
    });

  it('keeps its key and checkpoints, so an attack between the runs is found', async () => {
    const p = uniqueProject();
    const first = await start();
    const keyFile = join(dataDir, 'audit-checkpoints', 'audit-checkpoint-key');
    try {
      const internal: Internal = (method, path) =>
        request(first.app)[method](path).set('X-Internal-Secret', SECRET);
      await appendVia(internal)([entry(p, 1), entry(p, 2)]);
      await appendVia(internal)([entry(p, 3)]);
    } finally {
      await first.close();
    }
    const key = (await readFile(keyFile, 'utf8')).trim();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await fileStat(keyFile)).mode & 0o777).toBe(0o600);
    // Outside PGlite's cluster directory, where pg_read_file() could reach it.
    expect(first.checkpoints.location).toBe(join(dataDir, 'audit-checkpoints', 'audit-checkpoints.jsonl'));

    const second = await start();
    try {
      const internal: Internal = (method, path) =>
        request(second.app)[method](path).set('X-Internal-Secret', SECRET);
      expect(await verifyVia(internal)(p)).toMatchObject({ ok: true, checked: 3, checkpoint: { seq: 3 } });
      await cutTail(second.db, p, 1);
    } finally {
      await second.close();
    }
    expect((await readFile(keyFile, 'utf8')).trim()).toBe(key);

    const third = await start();
    try {
      const internal: Internal = (method, path) =>
        request(third.app)[method](path).set('X-Internal-Secret', SECRET);
      expect(await verifyVia(internal)(p)).toMatchObject({
        ok: false,
        code: 'behind_checkpoint',
        missing_from_seq: 2,
        missing_to_seq: 3,
      });
    } finally {
      await third.close();
    }
  });

  it('refuses to start with a key other than the one the log is signed with, or without its key file', async () => {
    const otherKey = 'another-key-of-at-least-32-characters!!';
    await expect(start({ SVC_AUDIT_CHECKPOINT_KEY: otherKey })).rejects.toThrow(
      /is signed with key id [0-9a-f]{16}, but the configured key has id/,
    );
    const keyFile = join(dataDir, 'audit-checkpoints', 'audit-checkpoint-key');
    const key = await readFile(keyFile, 'utf8');
    await rm(keyFile);
    try {
      await expect(start()).rejects.toThrow(/audit-checkpoint-key is missing but .* holds checkpoints/);
    } finally {
      await writeFile(keyFile, key, { mode: 0o600 });
    }
    // The same key given through the environment is accepted.
    const viaEnv = await start({ SVC_AUDIT_CHECKPOINT_KEY: key.trim() });
    await viaEnv.close();
  });
});
