import { gzipSync } from 'node:zlib';
import { logAuditOutput, logFileEntriesOutput, logListFilesOutput } from '@svc/tools-recall';
import { encodeLogFile, encryptFileBytes } from './file-codec';
import { type RecallHarness, startRecallHarness, type TestProject } from './testing/harness';

let h: RecallHarness;
let a: TestProject;
let b: TestProject;

const ENTRIES = [
  { ts: '2026-11-20T09:00:00.000Z', level: 'INFO', tag: 'App', message: 'launched' },
  { ts: '2026-11-20T09:00:05.000Z', level: 'WARN', tag: 'Net', message: 'retrying GET /cart' },
  {
    ts: '2026-11-20T09:00:06.000Z',
    level: 'ERROR',
    tag: 'Checkout',
    message: 'payment failed: card_declined',
  },
  { ts: '2026-11-20T09:00:07.000Z', level: 'error', message: 'second error \u200bhidden' },
  { ts: '2026-11-20T09:00:09.000Z', level: 'INFO', tag: 'App', message: 'backgrounded', battery: 0.4 },
];

async function upload(p: TestProject, query: Record<string, string>, body?: Buffer) {
  const key = await h.device(p, 'GET', '/device/v1/key');
  const { key: k, key_version } = (await key.json()) as { key: string; key_version: number };
  const bytes = body ?? encodeLogFile(ENTRIES, Buffer.from(k, 'base64'));
  const qs = new URLSearchParams({ key_version: String(key_version), ...query });
  const res = await h.device(p, 'POST', `/device/v1/files?${qs}`, bytes);
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  h = await startRecallHarness();
  a = await h.project('recall_a');
  b = await h.project('recall_b');
});
afterAll(async () => {
  await h?.close();
});

describe('device side', () => {
  it('refuses unsigned, badly signed and stale requests with 401', async () => {
    expect((await fetch(`${h.url}/device/v1/key`)).status).toBe(401);
    const wrong = { ...a, key: { ...a.key, secret: 'not-the-secret-0123456789' } };
    expect((await h.device(wrong, 'GET', '/device/v1/key')).status).toBe(401);
    const saved = h.clock.now;
    try {
      h.clock.now += 3_600_000;
      const stale = await fetch(`${h.url}/device/v1/key`, {
        headers: {
          'x-svc-key': a.key.key_id,
          'x-svc-timestamp': String(Math.floor(saved / 1000)),
          'x-svc-signature': 'v1=00',
        },
      });
      expect(stale.status).toBe(401);
    } finally {
      h.clock.now = saved;
    }
  });

  it('hands out the project key and accepts a file named by its version; an unknown version is 400', async () => {
    const first = await upload(a, {
      device_id: 'dev_1',
      user_id: 'u1',
      file_name: 'app-2026-11-20.log',
      date: '2026-11-20',
    });
    expect(first.status).toBe(201);
    expect(first.body.file_id).toMatch(/^rf_[0-9a-f]{24}$/);
    const bad = await h.device(
      a,
      'POST',
      '/device/v1/files?device_id=d&file_name=x&date=2026-11-20&key_version=9',
      Buffer.from('x'),
    );
    expect(bad.status).toBe(400);
    const noMeta = await h.device(a, 'POST', '/device/v1/files?device_id=d', Buffer.from('x'));
    expect(noMeta.status).toBe(400);
  });
});

describe('hostile parameters', () => {
  // A project of its own: what these store does not show up in the other tests' lists.
  let c: TestProject;
  beforeAll(async () => {
    c = await h.project('recall_hostile');
    // Key version 1 exists: a hostile name is the only thing wrong with the uploads below.
    await h.device(c, 'GET', '/device/v1/key');
  });
  const body = () => encodeLogFile(ENTRIES, Buffer.alloc(32));
  const post = (qs: string) => h.device(c, 'POST', `/device/v1/files?${qs}`, body());

  it('refuses control characters, key versions and days the store cannot hold with a 400 naming the field', async () => {
    const ok = 'device_id=d&file_name=f&date=2026-11-20&key_version=1';
    for (const [qs, field] of [
      ['device_id=%00&file_name=f&date=2026-11-20&key_version=1', 'device_id'],
      ['device_id=d&file_name=a%0Ab&date=2026-11-20&key_version=1', 'file_name'],
      [`${ok}&user_id=%7F`, 'user_id'],
      [`${ok}&session_id=x%00`, 'session_id'],
      [`${ok}&request_id=%00`, 'request_id'],
      ['device_id=d&file_name=f&date=2026-11-20&key_version=99999999999', 'key_version'],
      ['device_id=d&file_name=f&date=0000-01-01&key_version=1', 'date'],
    ] as const) {
      const res = await post(qs);
      expect([qs, res.status]).toEqual([qs, 400]);
      expect((await res.json()).message).toContain(field);
    }
    const poll = await h.device(c, 'GET', '/device/v1/recalls?device_id=%00');
    expect(poll.status).toBe(400);
    expect((await poll.json()).message).toContain('device_id');
  });

  it('stores names that are not UTF-8 as U+FFFD, and lists them well-formed', async () => {
    const key = (await (await h.device(c, 'GET', '/device/v1/key')).json()) as { key_version: number };
    const res = await post(
      `device_id=%ED%A0%80dev&file_name=%FFname%C0%80&date=2026-11-20&key_version=${key.key_version}`,
    );
    expect(res.status).toBe(201);
    const listed = (await h.tool(c.projectId, 'log.list_files', { q: 'name' })).body as {
      items: { device_id: string; file_name: string }[];
    };
    const file = listed.items.find((f) => f.file_name.includes('name'))!;
    expect(file.device_id).toMatch(/^\ufffd+dev$/);
    expect(file.file_name).toMatch(/^\ufffdname\ufffd+$/);
  });

  it('log.file_entries: ts and level as the device wrote them, any nesting, numbers past a double, lone surrogates', async () => {
    const { key, key_version } = (await (await h.device(c, 'GET', '/device/v1/key')).json()) as {
      key: string;
      key_version: number;
    };
    // A Java ZonedDateTime with a long zone id (69 characters) and a custom level (42).
    const ts = '2026-11-20T09:00:06.123456789-03:00[America/Argentina/ComodRivadavia]';
    const level = 'WARNING-WITH-A-VERY-LONG-CUSTOM-LEVEL-NAME';
    const depth = 60_000;
    const lines = [
      JSON.stringify({ ts, level, message: 'zoned' }),
      `{"ts":"t","level":"l","message":"deep","d":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      '{"ts":"t","level":"l","message":"big","n":1e400}',
      '{"ts":"t\\ud800","level":"l","message":"a\\udc00b","tag":"\\ud83d"}',
    ];
    const file = encryptFileBytes(gzipSync(Buffer.from(lines.join('\n'))), Buffer.from(key, 'base64'));
    const qs = new URLSearchParams({
      device_id: 'dev_e',
      file_name: 'entries.log',
      date: '2026-11-20',
      key_version: `${key_version}`,
    });
    const up = await h.device(c, 'POST', `/device/v1/files?${qs}`, file);
    const res = await h.tool(c.projectId, 'log.file_entries', { file_id: (await up.json()).file_id });
    expect(res.status).toBe(200);
    const body = logFileEntriesOutput.parse(res.body);
    expect(body).toMatchObject({ status: 'ok', lines_read: 4 });
    expect(body.items[0]).toMatchObject({ ts, level });
    expect((body.items[1]!.fields.d as string).startsWith('[[[[')).toBe(true);
    expect(body.items[2]!.fields).toEqual({ n: 'Infinity' });
    expect(body.items[3]).toMatchObject({ ts: 't\ufffd', message: 'a\ufffdb', tag: '\ufffd' });
    // The download gives the lines as written, but never an escape of a lone surrogate.
    const download = await fetch(
      `${h.url}/console/v1/projects/${c.projectId}/files/${body.file_id}/download`,
      {
        headers: { authorization: `Bearer ${c.session}` },
      },
    );
    expect(download.status).toBe(200);
    const downloaded = (await download.text()).trim().split('\n');
    expect(downloaded.slice(0, 3)).toEqual(lines.slice(0, 3));
    expect(JSON.parse(downloaded[3]!)).toEqual({
      ts: 't\ufffd',
      level: 'l',
      message: 'a\ufffdb',
      tag: '\ufffd',
    });
  });

  it('answers tool filters holding a NUL with nothing found, not a 500', async () => {
    for (const [tool, input] of [
      ['log.list_files', { device_id: 'a\u0000' }],
      ['log.list_files', { user_id: '\u0000' }],
      ['log.list_files', { q: 'x\u0000' }],
      ['log.audit', { file_id: '\u0000' }],
    ] as const) {
      const res = await h.tool(c.projectId, tool, input);
      expect([tool, res.status, res.body.items]).toEqual([tool, 200, []]);
    }
  });

  it('console: a trigger naming a device with a NUL is 400, a lone surrogate is stored as U+FFFD', async () => {
    const trigger = (body: unknown) =>
      fetch(`${h.url}/console/v1/projects/${c.projectId}/recalls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.session}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const nul = await trigger({ device_id: 'd\u0000' });
    expect(nul.status).toBe(400);
    expect(((await nul.json()) as { message: string }).message).toContain('device_id');
    expect((await trigger({ device_id: 'dev_\ud800' })).status).toBe(201);
    const audit = (await h.tool(c.projectId, 'log.audit', { action: 'trigger', limit: 1 })).body as {
      items: { device_id: string }[];
    };
    expect(audit.items[0]!.device_id).toBe('dev_\ufffd');
    const download = await fetch(`${h.url}/console/v1/projects/${c.projectId}/files/%00/download`, {
      headers: { authorization: `Bearer ${c.session}` },
    });
    expect(download.status).toBe(404);
  });
});

describe('tools', () => {
  let fileId: string;
  let corruptId: string;
  beforeAll(async () => {
    h.clock.now += 60_000;
    fileId = (
      await upload(a, {
        device_id: 'dev_2',
        user_id: 'u2',
        session_id: 's2',
        file_name: 'crash-session-2026-11-19.log',
        date: '2026-11-19',
      })
    ).body.file_id as string;
    h.clock.now += 60_000;
    const { key } = (await (await h.device(a, 'GET', '/device/v1/key')).json()) as { key: string };
    const broken = Buffer.from(
      `${JSON.stringify(ENTRIES[0])}\n${JSON.stringify(ENTRIES[1])}\n{oops\n${JSON.stringify(ENTRIES[2])}\n`,
    );
    corruptId = (
      await upload(
        a,
        { device_id: 'dev_2', file_name: 'corrupt.log', date: '2026-11-19' },
        encryptFileBytes(gzipSync(broken), Buffer.from(key, 'base64')),
      )
    ).body.file_id as string;
    await upload(b, { device_id: 'dev_b', file_name: 'B-ONLY.log', date: '2026-11-19' });
  });

  const list = async (input: unknown) => {
    const res = await h.tool(a.projectId, 'log.list_files', input);
    expect(res.status).toBe(200);
    return logListFilesOutput.parse(res.body);
  };

  it('log.list_files: newest first, filters, fuzzy name, limit, only this project', async () => {
    const all = await list({});
    expect(all.items.map((f) => f.file_name)).toEqual([
      'corrupt.log',
      'crash-session-2026-11-19.log',
      'app-2026-11-20.log',
    ]);
    expect(all.items[1]).toMatchObject({
      device_id: 'dev_2',
      user_id: 'u2',
      session_id: 's2',
      date: '2026-11-19',
    });
    expect((await list({ device_id: 'dev_1' })).items.map((f) => f.device_id)).toEqual(['dev_1']);
    expect((await list({ user_id: 'u2' })).items).toHaveLength(1);
    expect((await list({ date: '2026-11-19' })).items).toHaveLength(2);
    expect((await list({ q: 'CRSH1119' })).items.map((f) => f.file_name)).toEqual([
      'crash-session-2026-11-19.log',
    ]);
    expect((await list({ q: '%' })).items).toEqual([]);
    expect(await list({ limit: 1 })).toMatchObject({ limit: 1, has_more: true });
    expect(JSON.stringify(await list({ limit: 1000 }))).not.toContain('B-ONLY');
  });

  it('log.list_files pages by next_cursor: every file once, newest first', async () => {
    const all = (await list({})).items.map((f) => f.file_id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list({ limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((f) => f.file_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);
    const other = await h.tool(a.projectId, 'log.list_files', {
      limit: 1,
      q: 'x',
      cursor: (await list({ limit: 1 })).next_cursor,
    });
    expect(other.status).toBe(400);
    expect(other.body.details).toEqual([expect.objectContaining({ path: 'cursor' })]);
  });

  it('log.file_entries: fields named like Object.prototype members come back as data; __proto__ is dropped', async () => {
    // Before: zod's z.record in the output schema refused an entry with an own `constructor` key,
    // and the whole page answered 500.
    const names = ['constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf', 'isPrototypeOf'];
    const fields = Object.fromEntries(names.map((n, i) => [n, `${n} ${i}`]));
    const lines = [
      JSON.stringify({ ts: 't1', level: 'INFO', message: 'keyed', ...fields }),
      '{"ts":"t2","level":"INFO","message":"proto","__proto__":{"polluted":1},"constructor":{"prototype":1}}',
      JSON.stringify({ ts: 't3', level: 'INFO', message: 'nested', n: { constructor: 'c', toString: 1 } }),
    ];
    const { key, key_version } = (await (await h.device(a, 'GET', '/device/v1/key')).json()) as {
      key: string;
      key_version: number;
    };
    const file = encryptFileBytes(gzipSync(Buffer.from(lines.join('\n'))), Buffer.from(key, 'base64'));
    const qs = new URLSearchParams({
      device_id: 'dev_keys',
      file_name: 'keys.log',
      date: '2026-11-20',
      key_version: `${key_version}`,
    });
    const up = await h.device(a, 'POST', `/device/v1/files?${qs}`, file);
    const res = await h.tool(a.projectId, 'log.file_entries', { file_id: (await up.json()).file_id });
    expect({ status: res.status, body: res.status === 200 ? null : res.body }).toEqual({
      status: 200,
      body: null,
    });
    const body = logFileEntriesOutput.parse(res.body);
    expect(body.items.map((i) => [i.message, i.fields])).toEqual([
      ['keyed', fields],
      // Nested values come back as their JSON text, which keeps every key as written.
      ['proto', { constructor: '{"prototype":1}' }],
      ['nested', { n: '{"constructor":"c","toString":1}' }],
    ]);
    for (const item of body.items) expect(Object.getPrototypeOf(item.fields)).toBe(Object.prototype);
  });

  it('log.file_entries: decrypted entries in file order, level and text filters, paging, text cleaned', async () => {
    const read = async (input: Record<string, unknown>) => {
      const res = await h.tool(a.projectId, 'log.file_entries', { file_id: fileId, ...input });
      expect(res.status).toBe(200);
      return logFileEntriesOutput.parse(res.body);
    };
    const whole = await read({});
    expect(whole).toMatchObject({ found: true, status: 'ok', problem: null, lines_read: 5, has_more: false });
    expect(whole.items.map((e) => e.line)).toEqual([1, 2, 3, 4, 5]);
    expect(whole.items[3]!.message).toBe('second error hidden');
    expect(whole.items[4]!.fields).toEqual({ battery: 0.4 });
    expect((await read({ level: 'ERROR' })).items.map((e) => e.line)).toEqual([3, 4]);
    expect((await read({ q: 'checkout' })).items.map((e) => e.line)).toEqual([3]);
    const first = await read({ limit: 2 });
    expect(first).toMatchObject({ has_more: true });
    expect((await read({ limit: 2, after_line: 2 })).items.map((e) => e.line)).toEqual([3, 4]);
  });

  it('log.file_entries: a damaged file says so with the line where reading stopped, never empty', async () => {
    const res = await h.tool(a.projectId, 'log.file_entries', { file_id: corruptId });
    const body = logFileEntriesOutput.parse(res.body);
    expect(body).toMatchObject({ status: 'unreadable', problem: { stage: 'parse', line: 3 }, lines_read: 2 });
    expect(body.items.map((e) => e.message)).toEqual(['launched', 'retrying GET /cart']);
  });

  it("log.file_entries: unknown and other projects' files are found: false; no caller named is 400", async () => {
    const other = (await h.tool(b.projectId, 'log.list_files', {})).body as { items: { file_id: string }[] };
    for (const id of [other.items[0]!.file_id, 'rf_000000000000000000000000']) {
      expect((await h.tool(a.projectId, 'log.file_entries', { file_id: id })).body).toMatchObject({
        found: false,
        items: [],
      });
    }
    expect((await h.tool(a.projectId, 'log.file_entries', { file_id: fileId }, null)).status).toBe(400);
    expect((await h.tool(a.projectId, 'log.file_entries', { file_id: 'x' })).status).toBe(400);
  });

  it('log.audit: every view with who and how, newest first; the trail cannot be changed', async () => {
    h.clock.now += 1000;
    await h.tool(
      a.projectId,
      'log.file_entries',
      { file_id: fileId },
      { token_id: null, user_id: 'usr_rest', transport: 'rest' },
    );
    const res = await h.tool(a.projectId, 'log.audit', { action: 'view', limit: 2 });
    const body = logAuditOutput.parse(res.body);
    expect(body.items[0]).toEqual({
      at: new Date(h.clock.now).toISOString(),
      action: 'view',
      via: 'rest',
      user_id: 'usr_rest',
      token_id: null,
      file_id: fileId,
      device_id: 'dev_2',
      target_user_id: 'u2',
    });
    expect(body.has_more).toBe(true);
    expect((await h.tool(b.projectId, 'log.audit', {})).body).toMatchObject({ items: [] });
    await expect(h.db.query("UPDATE recall_audit SET user_id = 'someone else'")).rejects.toThrow(
      /append-only/,
    );
    await expect(h.db.query('DELETE FROM recall_audit')).rejects.toThrow(/append-only/);
  });

  it('answers an unknown tool with 404 and refuses calls without the internal secret', async () => {
    expect((await h.tool(a.projectId, 'log.recall_trigger', {})).status).toBe(404);
    const res = await fetch(`${h.url}/internal/v1/projects/${a.projectId}/tools/log.audit`, {
      method: 'POST',
    });
    expect(res.status).toBe(401);
  });
});

describe('console side', () => {
  const asPerson = (
    p: TestProject,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    session = p.session,
  ) =>
    fetch(`${h.url}/console${path}`, {
      method,
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('triggers a recall the device then sees, fulfilled by its upload; audited', async () => {
    const res = await asPerson(a, 'POST', `/v1/projects/${a.projectId}/recalls`, { device_id: 'dev_9' });
    expect(res.status).toBe(201);
    const { request_id } = (await res.json()) as { request_id: string };
    const poll = async () =>
      (
        (await (await h.device(a, 'GET', '/device/v1/recalls?device_id=dev_9')).json()) as {
          items: { request_id: string }[];
        }
      ).items;
    expect((await poll()).map((r) => r.request_id)).toEqual([request_id]);
    expect(
      (await upload(a, { device_id: 'dev_9', file_name: 'recalled.log', date: '2026-11-20', request_id }))
        .status,
    ).toBe(201);
    expect(await poll()).toEqual([]);
    const audit = (await h.tool(a.projectId, 'log.audit', { action: 'trigger' })).body as {
      items: Record<string, unknown>[];
    };
    expect(audit.items[0]).toMatchObject({
      action: 'trigger',
      via: 'console',
      user_id: a.userId,
      device_id: 'dev_9',
    });
    expect((await asPerson(a, 'POST', `/v1/projects/${a.projectId}/recalls`, {})).status).toBe(400);
  });

  it('downloads a file as NDJSON, audited; a damaged one is refused with its problem', async () => {
    const files = (await h.tool(a.projectId, 'log.list_files', { q: 'crash' })).body as {
      items: { file_id: string }[];
    };
    const id = files.items[0]!.file_id;
    const res = await asPerson(a, 'GET', `/v1/projects/${a.projectId}/files/${id}/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(ENTRIES);
    const audit = (await h.tool(a.projectId, 'log.audit', { action: 'download', file_id: id })).body as {
      items: unknown[];
    };
    expect(audit.items).toHaveLength(1);
    const corrupt = (await h.tool(a.projectId, 'log.list_files', { q: 'corrupt' })).body as {
      items: { file_id: string }[];
    };
    const refused = await asPerson(
      a,
      'GET',
      `/v1/projects/${a.projectId}/files/${corrupt.items[0]!.file_id}/download`,
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { details: unknown }).details).toMatchObject({
      stage: 'parse',
      line: 3,
    });
  });

  it("refuses no session (401), another org's project and an org without vis_recall (404 like unknown)", async () => {
    expect(
      (await asPerson(a, 'POST', `/v1/projects/${a.projectId}/recalls`, { user_id: 'u' }, 'svc_ses_nope'))
        .status,
    ).toBe(401);
    expect(
      (await fetch(`${h.url}/console/v1/projects/${a.projectId}/recalls`, { method: 'POST' })).status,
    ).toBe(401);
    expect((await asPerson(b, 'POST', `/v1/projects/${a.projectId}/recalls`, { user_id: 'u' })).status).toBe(
      404,
    );
    const off = await h.project('recall_off', { recall: false });
    expect(
      (await asPerson(off, 'POST', `/v1/projects/${off.projectId}/recalls`, { user_id: 'u' })).status,
    ).toBe(404);
  });
});

describe('key rotation', () => {
  it('keeps files written with the old key readable and new uploads use the new one', async () => {
    const before = (await list()).length;
    const { key_version: old } = (await (await h.device(a, 'GET', '/device/v1/key')).json()) as {
      key_version: number;
    };
    const rotated = await fetch(`${h.url}/internal/v1/projects/${a.projectId}/keys/rotate`, {
      method: 'POST',
      headers: { 'x-internal-secret': 'recall-test-internal-secret-0123' },
    });
    expect(rotated.status).toBe(201);
    expect(await rotated.json()).toEqual({ project_id: a.projectId, key_version: old + 1 });
    expect(
      ((await (await h.device(a, 'GET', '/device/v1/key')).json()) as { key_version: number }).key_version,
    ).toBe(old + 1);
    expect(
      (await fetch(`${h.url}/internal/v1/projects/${a.projectId}/keys/rotate`, { method: 'POST' })).status,
    ).toBe(401);
    const res = await upload(a, {
      device_id: 'dev_rot',
      file_name: 'after-rotation.log',
      date: '2026-11-20',
    });
    expect(res.status).toBe(201);
    const files = (await list()).slice(0, before + 1);
    for (const f of files) {
      const read = (await h.tool(a.projectId, 'log.file_entries', { file_id: f.file_id })).body as {
        status: string;
        problem: { stage: string } | null;
      };
      if (f.file_name !== 'corrupt.log') expect(read.status).toBe('ok');
    }
  });

  async function list() {
    return (
      (await h.tool(a.projectId, 'log.list_files', { limit: 1000 })).body as {
        items: { file_id: string; file_name: string }[];
      }
    ).items;
  }
});
