import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { type ConsoleTestBed, signIn, startConsoleTestBed, type TestUser } from '../testing/console-harness';
import { AUDIT_PAGE_SIZE } from './audit';

// The audit page over a real identity (PGlite, its checkpoint log): records appended as a gateway
// appends them, the page read back, then the chain tampered with as an attacker with DDL rights
// would, and the page read again.

let bed: ConsoleTestBed;
beforeAll(async () => {
  bed = await startConsoleTestBed();
});
afterAll(async () => {
  await bed.close();
});

const TOTAL = AUDIT_PAGE_SIZE + 5;
const SCRIPT = '<script>alert("audit")</script>';

/** Records 1..n of a project as a gateway sends them; the 7th has markup in its params. */
function entries(u: TestUser, n: number) {
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return {
      id: randomUUID(),
      at: new Date(Date.UTC(2030, 0, 1, 0, 0, i)).toISOString(),
      token_id: `tok_${i}`,
      user_id: `usr_${i}`,
      org_id: u.orgId,
      project_id: u.projectId,
      tool: i % 2 ? 'log.search' : 'crash.stats',
      transport: i % 3 ? 'mcp' : 'rest',
      status: i % 5 ? 'ok' : 'invalid_input',
      duration_ms: i,
      request_id: `req-${i}`,
      params: i === 7 ? { search: SCRIPT } : { search: `term ${i}` },
    };
  });
}

const seqsOf = (html: string) => [...html.matchAll(/<tr data-seq="(\d+)"/g)].map((m) => Number(m[1]));
const range = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, k) => from - k);

// Tampering needs the append-only trigger out of the way.
async function tamper(sql: string, params: unknown[]) {
  await bed.h.db.transaction(async (tx) => {
    await tx.query('ALTER TABLE audit_records DISABLE TRIGGER audit_records_no_update_delete');
    await tx.query(sql, params);
    await tx.query('ALTER TABLE audit_records ENABLE TRIGGER audit_records_no_update_delete');
  });
}

describe('GET /audit', () => {
  it('lists the records newest first, pages back with before_seq, and says the chain holds', async () => {
    const u = await bed.user('audit-list');
    const sent = entries(u, TOTAL);
    await bed.h.internal('post', '/internal/v1/audit').send({ records: sent }).expect(201);
    const { app } = bed.consoleApp();
    const agent = await signIn(app, u);

    const first = await agent.get('/audit').expect(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(seqsOf(first.text)).toEqual(range(TOTAL, TOTAL - AUDIT_PAGE_SIZE + 1));
    const status = /<div role="status"[^>]*id="audit-verification"[^>]*>([\s\S]*?)<\/div>/.exec(
      first.text,
    )![1]!;
    expect(status).toContain(`${TOTAL} records checked`);
    expect(status).toContain(`checkpoint signed at seq ${TOTAL} (2030-01-01 00:00:00 UTC)`);

    // Each row says what was sent for it.
    const newest = sent[TOTAL - 1]!;
    const row = first.text.slice(first.text.indexOf(`data-seq="${TOTAL}"`)).split('</tr>')[0]!;
    for (const text of [newest.user_id, newest.token_id, newest.tool, newest.transport, newest.status]) {
      expect(row).toContain(text);
    }
    expect(row).toContain(`${newest.duration_ms} ms`);

    const older = /href="(\/audit\?[^"]*before_seq=(\d+))"/.exec(first.text)!;
    expect(Number(older[2])).toBe(TOTAL - AUDIT_PAGE_SIZE + 1);
    const second = await agent.get(older[1]!.replace(/&amp;/g, '&')).expect(200);
    expect(seqsOf(second.text)).toEqual(range(TOTAL - AUDIT_PAGE_SIZE, 1));
    expect(second.text).not.toContain('before_seq=');
    expect(second.text).toContain('Newest records');
    // A before_seq that is no number is the newest page.
    expect(seqsOf((await agent.get('/audit?before_seq=abc').expect(200)).text)[0]).toBe(TOTAL);

    // Params are text: the record with markup in them shows it escaped.
    expect(first.text).not.toContain(SCRIPT);
    expect(first.text).toContain('&lt;script>alert(\\&quot;audit\\&quot;)&lt;/script>');
  });

  it('says BROKEN with role=alert once a record was changed, and still lists the records', async () => {
    const u = await bed.user('audit-broken');
    await bed.h
      .internal('post', '/internal/v1/audit')
      .send({ records: entries(u, 5) })
      .expect(201);
    const { app } = bed.consoleApp();
    const agent = await signIn(app, u);
    expect((await agent.get('/audit').expect(200)).text).toContain('data-verified="ok"');

    await tamper('UPDATE audit_records SET params = $2 WHERE project_id = $1 AND seq = 3', [
      u.projectId,
      JSON.stringify({ search: 'innocent' }),
    ]);
    const page = await agent.get('/audit').expect(200);
    const alert = /<div role="alert"[^>]*id="audit-verification"[^>]*>([\s\S]*?)<\/div>/.exec(page.text)![1]!;
    expect(alert).toContain('Hash chain BROKEN</strong> at seq 3');
    expect(alert).toContain('2 records intact before the break');
    expect(alert).toContain('<code>hash_mismatch</code> (seq 3)');
    expect(page.text).not.toContain('role="status"');
    expect(seqsOf(page.text)).toEqual([5, 4, 3, 2, 1]);
  });

  it("shows one project's records only, and never another org's", async () => {
    const a = await bed.user('audit-iso-a');
    const b = await bed.user('audit-iso-b');
    await bed.h
      .internal('post', '/internal/v1/audit')
      .send({ records: entries(a, 3) })
      .expect(201);
    const { app } = bed.consoleApp();
    const bAgent = await signIn(app, b);
    const page = await bAgent.get('/audit').expect(200);
    expect(seqsOf(page.text)).toEqual([]);
    expect(page.text).toContain('No tool call recorded for this project yet.');
    expect(page.text).toContain('0 records checked');
    expect((await bAgent.get(`/audit?project=${a.projectId}`)).status).toBe(404);
  });

  it("names who called: the signed-in person's email and their token's name, ids kept on hover", async () => {
    const u = await bed.user('audit-names');
    const userId = (
      await bed.h.db.query<{ user_id: string }>('SELECT user_id FROM users WHERE email = $1', [u.email])
    ).rows[0]!.user_id;
    const token = (
      await bed.h
        .internal('post', '/internal/v1/admin/tokens')
        .send({ project_id: u.projectId, name: 'nightly export' })
        .expect(201)
    ).body.token_id as string;
    const [record] = entries(u, 1);
    await bed.h
      .internal('post', '/internal/v1/audit')
      .send({ records: [{ ...record!, user_id: userId, token_id: token, transport: 'console' }] })
      .expect(201);
    const { app } = bed.consoleApp();
    const page = (await (await signIn(app, u)).get('/audit').expect(200)).text;
    const who = /<td data-label="Who">([\s\S]*?)<\/td>/.exec(page)![1]!;
    expect(who).toContain(`<span class="who-user" title="${userId}">${u.email}</span>`);
    expect(who).toContain(`title="${token}">token “nightly export”</small>`);
    expect(page).toContain('<td data-label="Via">console</td>');
    expect(page).toContain('data-verified="ok"');
  });

  it('sends a request without a session to sign-in', async () => {
    const { app } = bed.consoleApp();
    const res = await request(app).get('/audit').expect(303);
    expect(res.headers.location).toBe(`/login?next=${encodeURIComponent('/audit')}`);
  });
});
