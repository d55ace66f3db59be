import { execFile, execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AuditEntry, GENESIS_HASH } from '@svc/audit';
import request from 'supertest';
import { auditEntry, uniqueProject } from '../testing/audit-entries';
import { type Harness, SECRET, startHarness } from '../testing/harness';

/** A ceiling for one CLI run, not an expectation: a loaded machine starts node slowly (jest's is 300 s). */
const PROCESS_CEILING_MS = 240_000;

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The CLI as the image ships it (`dist/svc.js`, made by the package's `pnpm build`), built once here
 * into the package's node_modules/.cache (its npm dependencies resolve from there). Its ~56 runs
 * under tsx cost ~0.8 CPU-s each to start, the bundle ~0.25.
 */
let bundle: string;

let h: Harness;
let server: Server;
let url: string;
let workDir: string;

beforeAll(async () => {
  h = await startHarness();
  server = await new Promise<Server>((resolve) => {
    const s = h.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  workDir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  const cache = join(PACKAGE_DIR, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  bundle = join(await mkdtemp(join(cache, 'svc-cli-test-')), 'svc.js');
  execFileSync(process.execPath, ['../../scripts/build-app.mjs', 'src/cli/main.ts', bundle], {
    cwd: PACKAGE_DIR,
  });
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
  if (bundle) await rm(dirname(bundle), { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as a separate process, with only the SVC_* variables given here. */
function cli(
  args: string[],
  env: Record<string, string> = { SVC_IDENTITY_INTERNAL_URL: url, SVC_INTERNAL_SECRET: SECRET },
): Promise<Run> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('SVC_') && k !== 'INIT_CWD' && k !== 'NODE_OPTIONS',
    ),
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bundle, ...args],
      { cwd: PACKAGE_DIR, env: { ...base, ...env }, timeout: PROCESS_CEILING_MS },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
  });
}

/** --json: exactly one JSON object on stdout. */
async function json(args: string[], env?: Record<string, string>) {
  const run = await cli([...args, '--json'], env);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  const value = JSON.parse(run.stdout);
  expect(typeof value).toBe('object');
  return value;
}

const introspect = async (token: string) =>
  (await h.internal('post', '/internal/v1/introspect').send({ token }).expect(200)).body;

describe('pnpm svc', () => {
  it('bootstraps once, creates projects, tokens, ingest keys and sets capabilities', async () => {
    const boot = await json(['bootstrap', '--email', 'ops@cli.test', '--password', 'cli password 1']);
    expect(boot).toMatchObject({ created: true, org_id: expect.stringMatching(/^org_/) });
    expect(await json(['bootstrap', '--email', 'ops@cli.test'])).toMatchObject({
      created: false,
      org_id: boot.org_id,
    });

    const project = await json(['project', 'create', 'web shop', '--org', boot.org_id]);
    expect(project).toEqual({
      project_id: expect.stringMatching(/^prj_/),
      org_id: boot.org_id,
      name: 'web shop',
    });

    const token = await json([
      'token',
      'create',
      '--project',
      project.project_id,
      '--name',
      'ci',
      '--days',
      '7',
    ]);
    expect(token).toMatchObject({
      token: expect.stringMatching(/^svc_pat_/),
      name: 'ci',
      project_id: project.project_id,
    });
    expect(await introspect(token.token)).toMatchObject({ active: true, project_id: project.project_id });

    const list = await json(['token', 'list', '--project', project.project_id]);
    expect(list.items).toEqual([
      expect.objectContaining({ token_id: token.token_id, name: 'ci', revoked_at: null }),
    ]);

    const revoked = await json(['token', 'revoke', token.token_id]);
    expect(revoked).toEqual({ token_id: token.token_id, revoked_at: expect.any(String) });
    expect(await introspect(token.token)).toEqual({ active: false });

    const key = await json(['ingest-key', 'create', '--project', project.project_id]);
    expect(key).toMatchObject({ key_id: expect.stringMatching(/^key_/), project_id: project.project_id });
    expect(new URL(key.dsn).username).toBe(key.key_id);

    expect(await json(['capability', 'set', '--org', boot.org_id, 'vis_trace', 'on'])).toEqual({
      org_id: boot.org_id,
      capabilities: ['vis_trace'],
    });
    expect(await json(['capability', 'set', '--org', boot.org_id, 'vis_trace', 'off'])).toEqual({
      org_id: boot.org_id,
      capabilities: [],
    });
  });

  it('bootstrap --token --ingest-key sets up a fresh stack in one command', async () => {
    const boot = await json([
      'bootstrap',
      '--org-name',
      'Self-hosted',
      '--project-name',
      'first',
      '--email',
      'owner@cli.test',
      '--token',
      '--ingest-key',
    ]);
    expect(boot).toMatchObject({
      created: true,
      user_password: expect.any(String),
      token: { token: expect.stringMatching(/^svc_pat_/), token_id: expect.any(String) },
      ingest_key: { key_id: expect.stringMatching(/^key_/), secret: expect.any(String) },
    });
    expect(await introspect(boot.token.token)).toMatchObject({
      active: true,
      project_id: boot.project_id,
      org_id: boot.org_id,
      user_id: boot.user_id,
    });
    expect(boot.ingest_key.project_id).toBe(boot.project_id);

    // Again (a script run twice): the same org and project, and a new token, printed for humans.
    const again = await cli([
      'bootstrap',
      '--org-name',
      'Self-hosted',
      '--project-name',
      'first',
      '--email',
      'owner@cli.test',
      '--token',
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(
        `^already set up: org ${boot.org_id}, .*\\nMCP token \\(shown once; token \\S+, expires \\S+\\): svc_pat_\\w+\\n$`,
      ),
    );
  });

  it('creates a console user, with a generated password shown once, who can sign in', async () => {
    const project = await json(['project', 'create', 'people']);
    const given = await json([
      'user',
      'create',
      '--org',
      project.org_id,
      '--email',
      'given@cli.test',
      '--password',
      'a given password',
    ]);
    expect(given).toEqual({
      user_id: expect.stringMatching(/^usr_/),
      email: 'given@cli.test',
      org_id: project.org_id,
    });
    const made = await json(['user', 'create', '--org', project.org_id, '--email', 'made@cli.test']);
    expect(made.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    for (const [email, password] of [
      ['given@cli.test', 'a given password'],
      ['made@cli.test', made.password],
    ]) {
      await request(h.app).post('/console/v1/login').send({ email, password }).expect(200);
    }
    const again = await cli(['user', 'create', '--org', project.org_id, '--email', 'made@cli.test']);
    expect(again.code).not.toBe(0);
    expect((await cli(['user', 'create', '--email', 'x@cli.test'])).stderr).toContain('missing --org');
  });

  it('revokes an ingest key: identity serves it inactive, and an unknown one fails', async () => {
    const project = await json(['project', 'create', 'leaky app']);
    const key = await json(['ingest-key', 'create', '--project', project.project_id]);
    expect(await json(['ingest-key', 'revoke', key.key_id])).toEqual({
      key_id: key.key_id,
      project_id: project.project_id,
      active: false,
      allowed_origins: [],
    });
    const served = await h.internal('get', `/internal/v1/ingest-keys/${key.key_id}`).expect(200);
    expect(served.body.active).toBe(false);
    expect((await cli(['ingest-key', 'revoke', 'key_nope'])).code).not.toBe(0);
  });

  it('creates an ingest key with browser origins and sets them later', async () => {
    const project = await json(['project', 'create', 'browser app']);
    const key = await json([
      'ingest-key',
      'create',
      '--project',
      project.project_id,
      '--origin',
      'https://app.example.com',
      '--origin',
      'http://localhost:5173',
    ]);
    expect(key.allowed_origins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    const served = async () =>
      (await h.internal('get', `/internal/v1/ingest-keys/${key.key_id}`).expect(200)).body.allowed_origins;
    expect(await served()).toEqual(['https://app.example.com', 'http://localhost:5173']);

    expect(await json(['ingest-key', 'origins', key.key_id, '--origin', 'https://shop.example.com'])).toEqual(
      {
        key_id: key.key_id,
        project_id: project.project_id,
        active: true,
        allowed_origins: ['https://shop.example.com'],
      },
    );
    expect(await served()).toEqual(['https://shop.example.com']);

    const text = await cli(['ingest-key', 'origins', key.key_id, '--origin', 'http://localhost:5173']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`ingest key ${key.key_id}: allowed origins: http://localhost:5173\n`);

    // No --origin clears the list.
    const cleared = await cli(['ingest-key', 'origins', key.key_id]);
    expect(cleared.stdout).toBe(
      `ingest key ${key.key_id}: no allowed origins (no browser may send with it)\n`,
    );
    expect(await served()).toEqual([]);

    const created = await cli([
      'ingest-key',
      'create',
      '--project',
      project.project_id,
      '--origin',
      'https://a.example',
    ]);
    expect(created.stdout).toMatch(
      /^ingest key key_\w+\nDSN: http:\/\/.*\nallowed origins: https:\/\/a\.example\n$/,
    );

    const bad = await cli([
      'ingest-key',
      'origins',
      key.key_id,
      '--origin',
      'https://a.example/path',
      '--json',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    const refusal = JSON.parse(bad.stderr);
    expect(refusal.error).toBe('invalid_input');
    expect(refusal.message).toContain('"https://a.example/path"');
    const unknown = await cli(['ingest-key', 'origins', 'key_unknown', '--json']);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: 'not_found' });
    expect((await cli(['ingest-key', 'origins'])).code).toBe(2);
  });

  it('prints readable lines without --json', async () => {
    const project = await json(['project', 'create', 'readable']);
    const run = await cli(['token', 'create', '--project', project.project_id]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^svc_pat_[0-9A-Za-z]{36}\n\(token tok_/);
    const list = await cli(['token', 'list', '--project', project.project_id]);
    expect(list.stdout).toContain(run.stdout.slice(40, 44));
  });

  it('reads the secret from the data dir: an absolute SVC_DATA_DIR, or a relative one from INIT_CWD', async () => {
    await mkdir(join(workDir, 'abs'), { recursive: true });
    await writeFile(join(workDir, 'abs', 'internal-secret'), `${SECRET}\n`);
    await mkdir(join(workDir, 'custom'), { recursive: true });
    await writeFile(join(workDir, 'custom', 'internal-secret'), SECRET);
    const viaAbsolute = await json(['project', 'create', 'from-file'], {
      SVC_IDENTITY_INTERNAL_URL: url,
      SVC_DATA_DIR: join(workDir, 'abs'),
    });
    expect(viaAbsolute.name).toBe('from-file');
    const viaDataDir = await json(['project', 'create', 'from-data-dir'], {
      SVC_IDENTITY_INTERNAL_URL: url,
      INIT_CWD: workDir,
      SVC_DATA_DIR: 'custom',
    });
    expect(viaDataDir.name).toBe('from-data-dir');
  });

  it('fails on stderr with a non-zero exit and nothing on stdout', async () => {
    const wrongSecret = await cli(['project', 'create', 'x', '--json'], {
      SVC_IDENTITY_INTERNAL_URL: url,
      SVC_INTERNAL_SECRET: 'wrong-secret-0123456789',
    });
    expect(wrongSecret.code).not.toBe(0);
    expect(wrongSecret.stdout).toBe('');
    expect(JSON.parse(wrongSecret.stderr)).toMatchObject({ error: 'unauthorized' });

    const noSecret = await cli(['project', 'create', 'x'], {
      SVC_IDENTITY_INTERNAL_URL: url,
      INIT_CWD: join(workDir, 'none'),
    });
    expect(noSecret.code).not.toBe(0);
    expect(noSecret.stderr).toMatch(/SVC_INTERNAL_SECRET/);

    const usage = await cli(['token', 'create']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/missing --project/);
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['capability', 'set', '--org', 'org_x', 'vis_trace', 'maybe'])).code).toBe(2);

    const unknown = await cli(['token', 'revoke', 'tok_unknown', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: 'not_found' });

    const down = await cli(['project', 'create', 'x'], {
      SVC_IDENTITY_INTERNAL_URL: 'http://127.0.0.1:1',
      SVC_INTERNAL_SECRET: SECRET,
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach identity/);
  });

  it('prints usage for --help', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('token create --project');
    expect(help.stdout).toContain('ingest-key create --project <project_id> [--origin <origin>]...');
    expect(help.stdout).toContain('ingest-key origins <key_id> [--origin <origin>]...');
  });
});

const appendAudit = async (records: AuditEntry[]) =>
  h.internal('post', '/internal/v1/audit').send({ records }).expect(201);

/**
 * What a database superuser can do and the chain alone cannot show: the append-only trigger off,
 * the records after `keep` deleted, the head rewound to record `keep`.
 */
async function cutTail(projectId: string, keep: number): Promise<void> {
  const { rows } = await h.db.query<{ hash: string }>(
    'SELECT hash FROM audit_records WHERE project_id = $1 AND seq = $2',
    [projectId, keep],
  );
  await h.db.transaction(async (tx) => {
    await tx.query('ALTER TABLE audit_records DISABLE TRIGGER ALL');
    await tx.query('DELETE FROM audit_records WHERE project_id = $1 AND seq > $2', [projectId, keep]);
    await tx.query('UPDATE audit_chain_heads SET last_seq = $2, last_hash = $3 WHERE project_id = $1', [
      projectId,
      keep,
      rows[0]?.hash ?? GENESIS_HASH,
    ]);
    await tx.query('ALTER TABLE audit_records ENABLE TRIGGER ALL');
  });
}

// In order: the chains are verified intact first, then cut, then the log itself is damaged.
describe('pnpm svc audit verify', () => {
  const [kept, cut] = [uniqueProject('prj_kept'), uniqueProject('prj_cut')];
  const at = '2030-01-01T00:00:00.000Z';

  beforeAll(async () => {
    await appendAudit([1, 2, 3].map((i) => auditEntry(kept, i)));
    await appendAudit([1, 2, 3].map((i) => auditEntry(cut, i)));
    await appendAudit([4, 5].map((i) => auditEntry(cut, i)));
  });

  it('verifies every project against the checkpoint log and exits 0', async () => {
    const all = await json(['audit', 'verify']);
    expect(all).toEqual({
      ok: true,
      projects: expect.arrayContaining([
        { project_id: kept, ok: true, checked: 3, checkpoint: { seq: 3, hash: expect.any(String), at } },
        { project_id: cut, ok: true, checked: 5, checkpoint: { seq: 5, hash: expect.any(String), at } },
      ]),
      checkpoint_log: expect.objectContaining({ location: h.checkpoints.location, unreadable_lines: 0 }),
    });

    const text = await cli(['audit', 'verify']);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe('');
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toContain(`ok     ${kept}  3 records, checkpoint seq 3 at ${at}`);
    expect(lines).toContain(`ok     ${cut}  5 records, checkpoint seq 5 at ${at}`);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^ok: ${all.projects.length} projects verified against .*audit-checkpoints\\.jsonl`),
    );
  });

  it('verifies one project with --project, its id URL-encoded', async () => {
    expect(await json(['audit', 'verify', '--project', kept])).toEqual({
      project_id: kept,
      ok: true,
      checked: 3,
      checkpoint: { seq: 3, hash: expect.any(String), at },
    });
    // Any id reaches identity as given: one it has never seen is an empty, unanchored chain.
    const odd = 'prj odd&project_id=x/?#';
    expect(await json(['audit', 'verify', '--project', odd])).toEqual({
      project_id: odd,
      ok: true,
      checked: 0,
      checkpoint: null,
    });
    const text = await cli(['audit', 'verify', '--project', odd]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`ok     ${odd}  0 records, no checkpoint\nok: ${odd} verified\n`);
  });

  it('finds a deleted tail the chain alone hides: the result in full on stdout, exit 1', async () => {
    await cutTail(cut, 3);

    const all = await cli(['audit', 'verify', '--json']);
    expect(all.code).toBe(1);
    expect(all.stderr).toBe('');
    expect(all.stdout.trim().split('\n')).toHaveLength(1);
    const answer = JSON.parse(all.stdout);
    expect(answer.ok).toBe(false);
    const broken = {
      project_id: cut,
      ok: false,
      checked: 3,
      broken_at_seq: 4,
      code: 'behind_checkpoint',
      reason: expect.stringMatching(/^records 4-5 are missing: the database chain ends at seq 3/),
      checkpoint: { seq: 5, hash: expect.any(String), at },
      missing_from_seq: 4,
      missing_to_seq: 5,
    };
    expect(answer.projects).toContainEqual(expect.objectContaining(broken));
    expect(answer.projects).toContainEqual(expect.objectContaining({ project_id: kept, ok: true }));

    const one = await cli(['audit', 'verify', '--project', cut, '--json']);
    expect(one.code).toBe(1);
    expect(JSON.parse(one.stdout)).toMatchObject(broken);
    const fine = await cli(['audit', 'verify', '--project', kept, '--json']);
    expect(fine.code).toBe(0);

    const text = await cli(['audit', 'verify']);
    expect(text.code).toBe(1);
    expect(text.stderr).toBe('');
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toContain(`ok     ${kept}  3 records, checkpoint seq 3 at ${at}`);
    const at4 = lines.findIndex((l) =>
      l.startsWith(`BROKEN ${cut}  behind_checkpoint at seq 4: records 4-5 are missing`),
    );
    expect(at4).toBeGreaterThanOrEqual(0);
    expect(lines[at4 + 1]).toBe('       missing seq 4-5');
    expect(lines.at(-1)).toBe(`BROKEN: 1 of ${answer.projects.length} projects failed verification`);

    const single = await cli(['audit', 'verify', '--project', cut]);
    expect(single.code).toBe(1);
    expect(single.stdout).toMatch(new RegExp(`^BROKEN ${cut}  behind_checkpoint at seq 4: `));
    expect(single.stdout.trimEnd().split('\n').at(-1)).toBe(`BROKEN: ${cut} failed verification`);
  });

  it("prints the log's unreadable lines and skipped torn last line", async () => {
    const torn = '{"v":1,"kid":"0123';
    await appendFile(h.checkpoints.location, `garbage that is not json\n${torn}`);
    const answer = JSON.parse((await cli(['audit', 'verify', '--json'])).stdout);
    const { lines: read, location } = answer.checkpoint_log;
    expect(answer.checkpoint_log).toMatchObject({ unreadable: [{ line: read, reason: 'not JSON' }] });

    const text = await cli(['audit', 'verify']);
    expect(text.code).toBe(1);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toContain(`unreadable: line ${read} of ${location}: not JSON`);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^warning: line ${read + 1} of .* is incomplete \\(${torn.length} bytes`),
      ),
    );
    expect(lines.at(-1)).toBe(
      `BROKEN: 1 of ${answer.projects.length} projects failed verification; 1 line of the checkpoint log cannot be read`,
    );
  });

  it('refuses an unknown flag or a stray argument with the usage, exit 2', async () => {
    for (const args of [
      ['audit', 'verify', '--frobnicate'],
      ['audit', 'verify', 'extra'],
      ['audit', 'verify', '--project', ''],
    ]) {
      const run = await cli(args);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('audit verify [--project <project_id>]');
    }
  });
});
