import { createPostgres, type Postgres, runMigrations } from '@svc/postgres';
import { hasPostgresBinaries, startThrowawayCluster, type ThrowawayCluster } from '@svc/postgres/testing';
import request from 'supertest';
import { identityMigrations, migrateIdentity } from './migrations';
import { type Harness, seedProject, startHarness } from './testing/harness';

// The browser origins of an ingest key (docs/ingest.md, "Browsers (CORS)"), on PGlite and on PostgreSQL 15:
// set at creation or later by an operator or a console user, served to the core with the key.

const APP = 'https://app.example.com';
const DEV = 'http://localhost:5173';

function describeOrigins(start: () => Promise<Harness>) {
  let h: Harness;
  beforeAll(async () => {
    h = await start();
  });
  afterAll(async () => {
    await h.close();
  });

  const createKey = (body: object) => h.internal('post', '/internal/v1/admin/ingest-keys').send(body);
  const setOrigins = (keyId: string, body: object) =>
    h.internal('put', `/internal/v1/admin/ingest-keys/${keyId}/allowed-origins`).send(body);
  const served = async (keyId: string) =>
    (await h.internal('get', `/internal/v1/ingest-keys/${keyId}`).expect(200)).body;

  async function consoleUser(name: string) {
    const { orgId, projectId } = await seedProject(h, name);
    const email = `${name}@origins.test`;
    const password = `password of ${name}`;
    await h.internal('post', '/internal/v1/admin/users').send({ email, password, org_id: orgId }).expect(201);
    const login = await request(h.app).post('/console/v1/login').send({ email, password }).expect(200);
    const as = (method: 'post' | 'put', path: string) =>
      request(h.app)[method](path).set('Authorization', `Bearer ${login.body.session_token}`);
    return { orgId, projectId, as };
  }

  it('creates a key without origins by default, and with the given ones, repeats dropped', async () => {
    const { projectId } = await seedProject(h, 'origins-create');
    const plain = await createKey({ project_id: projectId }).expect(201);
    expect(plain.body.allowed_origins).toEqual([]);
    expect(await served(plain.body.key_id)).toMatchObject({ active: true, allowed_origins: [] });

    const web = await createKey({ project_id: projectId, allowed_origins: [APP, DEV, APP] }).expect(201);
    expect(web.body).toEqual({
      key_id: expect.stringMatching(/^key_/),
      secret: expect.any(String),
      project_id: projectId,
      dsn: expect.stringContaining(web.body.key_id),
      allowed_origins: [APP, DEV],
    });
    expect(await served(web.body.key_id)).toEqual({
      key_id: web.body.key_id,
      project_id: projectId,
      secret: web.body.secret,
      active: true,
      allowed_origins: [APP, DEV],
    });
  });

  it.each([
    ['a path', 'https://app.example.com/checkout'],
    ['a trailing slash', 'https://app.example.com/'],
    ['a wildcard', 'https://*.example.com'],
    ['a bare wildcard', '*'],
    ['no scheme', 'app.example.com'],
    ['a query', 'https://app.example.com?x=1'],
    ['a user', 'https://me@app.example.com'],
    ['upper case', 'https://App.example.com'],
    ['a default port', 'https://app.example.com:443'],
    ['another scheme', 'ftp://files.example.com'],
    ['the opaque origin', 'null'],
    ['an empty string', ''],
  ])('refuses %s with a 400 naming the origin', async (_what, origin) => {
    const { projectId } = await seedProject(h, 'origins-bad');
    for (const res of [
      await createKey({ project_id: projectId, allowed_origins: [APP, origin] }),
      await setOrigins('key_any', { allowed_origins: [APP, origin] }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_input');
      expect(res.body.message).toContain('allowed_origins.1 must be a web origin');
      expect(res.body.message).toContain(JSON.stringify(origin));
    }
  });

  it('refuses more than 20 origins and a list that is not one', async () => {
    const { projectId } = await seedProject(h, 'origins-many');
    const twenty = Array.from({ length: 20 }, (_, i) => `https://site${i}.example.com`);
    expect((await createKey({ project_id: projectId, allowed_origins: twenty })).status).toBe(201);
    const many = await createKey({
      project_id: projectId,
      allowed_origins: [...twenty, 'https://x.example'],
    });
    expect(many.status).toBe(400);
    expect(many.body.message).toContain('allowed_origins must have at most 20 items');
    expect((await createKey({ project_id: projectId, allowed_origins: APP })).status).toBe(400);
    const key = (await createKey({ project_id: projectId }).expect(201)).body;
    expect((await setOrigins(key.key_id, {})).status).toBe(400);
    expect((await setOrigins(key.key_id, { allowed_origins: [APP], extra: 1 })).status).toBe(400);
  });

  it('replaces the origins of a key with PUT; an empty list allows none again', async () => {
    const { projectId } = await seedProject(h, 'origins-put');
    const key = (await createKey({ project_id: projectId, allowed_origins: [APP] }).expect(201)).body;
    const set = await setOrigins(key.key_id, { allowed_origins: [DEV, APP] }).expect(200);
    // The secret is shown only at creation.
    expect(set.body).toEqual({
      key_id: key.key_id,
      project_id: projectId,
      active: true,
      allowed_origins: [DEV, APP],
    });
    expect((await served(key.key_id)).allowed_origins).toEqual([DEV, APP]);
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        level: 'info',
        obj: expect.objectContaining({ event: 'ingest_key_origins_set', key_id: key.key_id }),
      }),
    );

    await setOrigins(key.key_id, { allowed_origins: [] }).expect(200);
    expect((await served(key.key_id)).allowed_origins).toEqual([]);
    expect((await setOrigins('key_unknown', { allowed_origins: [APP] })).status).toBe(404);
  });

  it('lets a console user set the origins of keys of their own project only', async () => {
    const u = await consoleUser('origins-console');
    const created = await u
      .as('post', `/console/v1/projects/${u.projectId}/ingest-keys`)
      .send({ allowed_origins: [APP] })
      .expect(201);
    expect(created.body).toMatchObject({ project_id: u.projectId, allowed_origins: [APP] });
    const path = (projectId: string, keyId: string) =>
      `/console/v1/projects/${projectId}/ingest-keys/${keyId}/allowed-origins`;

    const set = await u
      .as('put', path(u.projectId, created.body.key_id))
      .send({ allowed_origins: [DEV] })
      .expect(200);
    expect(set.body).toEqual({
      key_id: created.body.key_id,
      project_id: u.projectId,
      active: true,
      allowed_origins: [DEV],
    });
    expect((await served(created.body.key_id)).allowed_origins).toEqual([DEV]);
    const bad = await u.as('put', path(u.projectId, created.body.key_id)).send({ allowed_origins: ['*'] });
    expect(bad.status).toBe(400);

    // A key of another project of the same org, named under this project: 404, unchanged.
    const sibling = await h
      .internal('post', '/internal/v1/admin/projects')
      .send({ name: 'sibling', org_id: u.orgId })
      .expect(201);
    const siblingKey = (
      await createKey({ project_id: sibling.body.project_id, allowed_origins: [APP] }).expect(201)
    ).body;
    const crossed = await u.as('put', path(u.projectId, siblingKey.key_id)).send({ allowed_origins: [DEV] });
    expect(crossed.status).toBe(404);
    expect(crossed.body.error).toBe('not_found');
    expect((await served(siblingKey.key_id)).allowed_origins).toEqual([APP]);

    // Another org's project and key: 404 whichever project is named.
    const other = await consoleUser('origins-console-other');
    const otherKey = (await createKey({ project_id: other.projectId, allowed_origins: [APP] }).expect(201))
      .body;
    for (const projectId of [u.projectId, other.projectId]) {
      const res = await u.as('put', path(projectId, otherKey.key_id)).send({ allowed_origins: [DEV] });
      expect(res.status).toBe(404);
    }
    expect((await served(otherKey.key_id)).allowed_origins).toEqual([APP]);
    expect((await u.as('put', path(u.projectId, 'key_unknown')).send({ allowed_origins: [] })).status).toBe(
      404,
    );
  });
}

describe('ingest key origins on PGlite', () => {
  describeOrigins(() => startHarness());
});

const describeWithServer = hasPostgresBinaries ? describe : describe.skip;
describeWithServer('ingest key origins on PostgreSQL 15', () => {
  let cluster: ThrowawayCluster;
  beforeAll(async () => {
    cluster = await startThrowawayCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });
  describeOrigins(async () => startHarness(await createPostgres({ url: cluster.url, maxConnections: 4 })));

  it('gives keys made before the migration an empty list', async () => {
    // The suite above migrated the cluster's database: this one starts from a database of its own.
    const admin = await createPostgres({ url: cluster.url, maxConnections: 1 });
    await admin.exec('CREATE DATABASE identity_upgrade');
    await admin.close();
    const url = cluster.url.replace(/\/postgres$/, '/identity_upgrade');
    await expectEmptyListAfterUpgrade(await createPostgres({ url, maxConnections: 2 }));
  });
});

describe('migration 0005 on PGlite', () => {
  it('gives keys made before the migration an empty list', async () => {
    await expectEmptyListAfterUpgrade(await createPostgres({ dataDir: ':memory:' }));
  });
});

/** A database at migration 0004 with one key, brought up to date. */
async function expectEmptyListAfterUpgrade(db: Postgres): Promise<void> {
  try {
    const before = identityMigrations.filter((m) => m.id < '0005');
    await runMigrations(db, before);
    await db.exec(`
      INSERT INTO orgs (org_id, name, created_at) VALUES ('org_old', 'old', now());
      INSERT INTO projects (project_id, org_id, name, created_at) VALUES ('prj_old', 'org_old', 'old', now());
      INSERT INTO ingest_keys (key_id, secret, project_id, created_at) VALUES ('key_old', 's', 'prj_old', now());
    `);
    const after = identityMigrations.filter((m) => m.id >= '0005').map((m) => m.id);
    expect(after.slice(0, 2)).toEqual(['0005_ingest_key_allowed_origins', '0006_console_tool_tokens']);
    expect(await migrateIdentity(db)).toEqual(after);
    const { rows } = await db.query<{ allowed_origins: string[] }>(
      "SELECT allowed_origins FROM ingest_keys WHERE key_id = 'key_old'",
    );
    expect(rows).toEqual([{ allowed_origins: [] }]);
  } finally {
    await db.close();
  }
}
