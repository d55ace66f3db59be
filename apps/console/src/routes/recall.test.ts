import { UserInputError } from '@svc/errors';
import type { RecallApi } from '../recall-api';
import {
  type ConsoleTestBed,
  csrfIn,
  recordingTools,
  signIn,
  startConsoleTestBed,
  type TestUser,
} from '../testing/console-harness';
import type { ToolAnswer } from '../tool-calls';

// The recall routes over a real identity (sessions, projects), a recording tool caller in place of
// the gateway and a recording stand-in for recall's console side: what the pages send where, and
// what they answer. Against the real gateway and recall: apps/standalone/src/e2e.

let bed: ConsoleTestBed;
beforeAll(async () => {
  bed = await startConsoleTestBed();
});
afterAll(async () => {
  await bed.close();
});

const FILE_ID = 'rf_0123456789abcdef01234567';
const NDJSON = '{"ts":"2030-01-01T00:00:00Z","level":"INFO","message":"hello"}\n';
const file = {
  file_id: FILE_ID,
  device_id: 'dev-1',
  user_id: 'user_7',
  session_id: 'ses_1',
  file_name: 'app-2030-01-01.log',
  date: '2030-01-01',
  size_bytes: 100,
  uploaded_at: '2030-01-02T00:00:00.000Z',
};
const ok = (result: unknown): ToolAnswer => ({ ok: true, status: 200, result });

function answers(tool: string, input: unknown): ToolAnswer {
  if (tool === 'log.list_files') return ok({ items: [file], limit: 50, has_more: false });
  if (tool === 'log.audit') return ok({ items: [], limit: 100, has_more: false });
  const found = (input as { file_id: string }).file_id === FILE_ID;
  return ok({
    file_id: (input as { file_id: string }).file_id,
    found,
    file: found ? file : null,
    status: 'ok',
    problem: null,
    lines_read: found ? 1 : 0,
    items: found ? [{ line: 1, ts: 't', level: 'INFO', tag: null, message: 'hello', fields: {} }] : [],
    limit: 500,
    has_more: false,
  });
}

interface RecallCall {
  what: 'trigger' | 'download';
  projectId: string;
  arg: unknown;
}

function recordingRecall(fail?: Error) {
  const calls: RecallCall[] = [];
  const recall: RecallApi = {
    async trigger(_session, projectId, target) {
      calls.push({ what: 'trigger', projectId, arg: target });
      if (fail) throw fail;
      return { request_id: 'rr_0123456789abcdef01234567', requested_at: '2030-01-01T00:00:00.000Z' };
    },
    async download(_session, projectId, fileId) {
      calls.push({ what: 'download', projectId, arg: fileId });
      if (fail) throw fail;
      return { body: NDJSON, filename: `${fileId}.ndjson` };
    },
  };
  return { recall, calls };
}

async function signedIn(name: string, options: { recall?: RecallApi; answer?: typeof answers } = {}) {
  const u: TestUser = await bed.user(name);
  const { tools, calls } = recordingTools(options.answer ?? answers);
  const { app } = bed.consoleApp({ tools, recall: options.recall });
  const agent = await signIn(app, u);
  return { agent, u, toolCalls: calls };
}

describe('recall not deployed', () => {
  it('says so, calls no tool, and has no file, download or trigger', async () => {
    const { agent, u, toolCalls } = await signedIn('recall-none');
    const page = await agent.get('/recall').expect(200);
    expect(page.text).toContain('Recall is not deployed');
    expect((await agent.get(`/recall/files/${FILE_ID}`)).status).toBe(404);
    expect((await agent.get('/recall/audit')).status).toBe(404);
    const csrf = csrfIn(page.text);
    const posts = [
      ['/recall/trigger', { _csrf: csrf, device_id: 'dev-1' }],
      [`/recall/files/${FILE_ID}/download`, { _csrf: csrf }],
    ] as const;
    for (const [path, form] of posts) {
      expect((await agent.post(`${path}?project=${u.projectId}`).type('form').send(form)).status).toBe(404);
    }
    expect(toolCalls).toEqual([]);
  });
});

describe('GET /recall', () => {
  it('lists files with log.list_files, sending only the filters filled in', async () => {
    const { agent, u, toolCalls } = await signedIn('recall-list', { recall: recordingRecall().recall });
    const page = await agent
      .get('/recall')
      .query({
        project: u.projectId,
        device_id: ' dev-1 ',
        user_id: '',
        date: '2030-01-01',
        q: '',
        limit: '20',
      })
      .expect(200);
    await agent.get('/recall').expect(200);
    expect(toolCalls).toEqual([
      {
        projectId: u.projectId,
        tool: 'log.list_files',
        input: { device_id: 'dev-1', date: '2030-01-01', limit: 20 },
      },
      { projectId: u.projectId, tool: 'log.list_files', input: {} },
    ]);
    expect(page.text).toContain(`data-file-id="${FILE_ID}"`);
    expect(page.text).toMatch(/<input id="filter-device" name="device_id" value="dev-1"/);
  });

  it("shows the tool's refusal with the gateway's status", async () => {
    const refused: ToolAnswer = {
      ok: false,
      status: 404,
      error: { error: 'not_found', message: 'Unknown tool.' },
    };
    const { agent } = await signedIn('recall-refused', {
      recall: recordingRecall().recall,
      answer: () => refused,
    });
    const page = await agent.get('/recall').expect(404);
    expect(page.text).toContain('<code>log.list_files</code> answered <strong>404</strong>');
    expect(page.text).toContain('id="trigger-recall"');
  });
});

describe('POST /recall/trigger', () => {
  it('asks recall for the device or user given, then redirects with a notice naming the request', async () => {
    const { recall, calls } = recordingRecall();
    const { agent, u } = await signedIn('recall-trigger', { recall });
    const csrf = csrfIn((await agent.get('/recall').expect(200)).text);
    const res = await agent
      .post(`/recall/trigger?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, device_id: ' dev-1 ', user_id: '' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/recall?project=${u.projectId}&requested=rr_0123456789abcdef01234567`);
    expect(calls).toEqual([{ what: 'trigger', projectId: u.projectId, arg: { device_id: 'dev-1' } }]);
    const after = await agent.get(res.headers.location!).expect(200);
    expect(after.text).toMatch(
      /<p role="status"[^>]*>Recall requested \(request rr_0123456789abcdef01234567\)/,
    );
    // Only a request id of recall's shape is ever echoed.
    expect((await agent.get('/recall?requested=<b>x</b>').expect(200)).text).not.toContain(
      'Recall requested',
    );
  });

  it('refuses an empty target, a refused one, and a form without the CSRF token', async () => {
    const { recall, calls } = recordingRecall();
    const { agent, u } = await signedIn('recall-trigger-bad', { recall });
    const csrf = csrfIn((await agent.get('/recall').expect(200)).text);
    const empty = await agent
      .post(`/recall/trigger?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, device_id: ' ', user_id: '' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Give a device id or an end-user id to recall.');
    const forged = await agent
      .post(`/recall/trigger?project=${u.projectId}`)
      .type('form')
      .send({ device_id: 'd' });
    expect(forged.status).toBe(403);
    expect(calls).toEqual([]);

    const refusing = recordingRecall(new UserInputError('Recall refused the request.'));
    const other = await signedIn('recall-trigger-refused', { recall: refusing.recall });
    const otherCsrf = csrfIn((await other.agent.get('/recall').expect(200)).text);
    const refused = await other.agent
      .post(`/recall/trigger?project=${other.u.projectId}`)
      .type('form')
      .send({ _csrf: otherCsrf, user_id: 'user_7' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Recall refused this request');
    expect(refused.text).toMatch(/<input id="trigger-user" name="user_id"[^>]*value="user_7"/);
  });
});

describe('a file', () => {
  it('shows its entries with log.file_entries, filters and after_line passed on', async () => {
    const { agent, u, toolCalls } = await signedIn('recall-entries', { recall: recordingRecall().recall });
    const page = await agent
      .get(`/recall/files/${FILE_ID}`)
      .query({ project: u.projectId, level: 'error', q: '', after_line: '2' })
      .expect(200);
    expect(toolCalls).toEqual([
      {
        projectId: u.projectId,
        tool: 'log.file_entries',
        input: { file_id: FILE_ID, level: 'error', after_line: 2 },
      },
    ]);
    expect(page.text).toContain('<tr data-line="1">');
    const missing = 'rf_ffffffffffffffffffffffff';
    expect((await agent.get(`/recall/files/${missing}`)).status).toBe(404);
    expect((await agent.get('/recall/files/not-a-file-id')).status).toBe(404);
    expect(toolCalls.map((c) => (c.input as { file_id: string }).file_id)).toEqual([FILE_ID, missing]);
  });

  it('downloads by POST with the CSRF token, as an NDJSON attachment', async () => {
    const { recall, calls } = recordingRecall();
    const { agent, u } = await signedIn('recall-download', { recall });
    const csrf = csrfIn((await agent.get('/recall').expect(200)).text);
    const res = await agent
      .post(`/recall/files/${FILE_ID}/download?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf })
      .buffer(true)
      .parse((r, done) => {
        let text = '';
        r.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        r.on('end', () => done(null, text));
      });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${FILE_ID}.ndjson"`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toBe(NDJSON);
    expect(calls).toEqual([{ what: 'download', projectId: u.projectId, arg: FILE_ID }]);

    expect((await agent.post(`/recall/files/${FILE_ID}/download`).type('form').send({})).status).toBe(403);
    expect((await agent.get(`/recall/files/${FILE_ID}/download`)).status).toBe(404);
    expect(calls.length).toBe(1);
  });

  it('says why a file that cannot be read to its end is not downloaded', async () => {
    const problem = { stage: 'decompress', line: 4, message: 'the gzip stream is cut' };
    const { recall } = recordingRecall(
      new UserInputError('Recall refused the request.', { details: problem }),
    );
    const { agent, u } = await signedIn('recall-download-bad', { recall });
    const csrf = csrfIn((await agent.get('/recall').expect(200)).text);
    const res = await agent
      .post(`/recall/files/${FILE_ID}/download?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf });
    expect(res.status).toBe(422);
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.text).toContain('decompress at line 4: the gzip stream is cut');
  });
});

describe('GET /recall/audit', () => {
  it('reads the recall audit trail with log.audit and the filters filled in', async () => {
    const { agent, u, toolCalls } = await signedIn('recall-audit', { recall: recordingRecall().recall });
    const page = await agent
      .get('/recall/audit')
      .query({ action: 'view', file_id: '', limit: '10' })
      .expect(200);
    expect(toolCalls).toEqual([
      { projectId: u.projectId, tool: 'log.audit', input: { action: 'view', limit: 10 } },
    ]);
    expect(page.text).toContain('Nothing recorded that matches.');
  });

  it("names who did each thing with identity's names for this org, ids otherwise", async () => {
    const u = await bed.user('recall-names');
    const other = await bed.user('recall-names-other');
    const userIdOf = async (email: string) =>
      (await bed.h.db.query<{ user_id: string }>('SELECT user_id FROM users WHERE email = $1', [email]))
        .rows[0]!.user_id;
    const [mine, theirs] = [await userIdOf(u.email), await userIdOf(other.email)];
    const bot = (
      await bed.h
        .internal('post', '/internal/v1/admin/tokens')
        .send({ project_id: u.projectId, name: 'ci bot' })
        .expect(201)
    ).body.token_id as string;
    const record = {
      action: 'view',
      via: 'console',
      file_id: FILE_ID,
      device_id: 'dev-1',
      target_user_id: null,
    };
    const items = [
      { ...record, at: '2030-01-01T00:00:02.000Z', user_id: mine, token_id: bot },
      { ...record, at: '2030-01-01T00:00:01.000Z', user_id: theirs, token_id: null },
    ];
    const { tools } = recordingTools((tool) =>
      tool === 'log.audit' ? ok({ items, limit: 100, has_more: false }) : answers(tool, {}),
    );
    const { app } = bed.consoleApp({ tools, recall: recordingRecall().recall });
    const agent = await signIn(app, u);
    const page = (await agent.get('/recall/audit').expect(200)).text;
    const who = [...page.matchAll(/<td data-label="Who">([\s\S]*?)<\/td>/g)].map((m) => m[1]!);
    expect(who[0]).toContain(`<span class="who-user" title="${mine}">${u.email}</span>`);
    expect(who[0]).toContain(`title="${bot}">token “ci bot”</small>`);
    // Another org's person stays an id: identity names only the session's org.
    expect(who[1]).toContain(`<span class="who-user">${theirs}</span>`);
    expect(page).not.toContain(other.email);
  });
});
