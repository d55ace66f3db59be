import { encodeLogFile } from './file-codec';
import { type RecallHarness, startRecallHarness, type TestProject } from './testing/harness';

// Device requests are signed whole and single-use: a captured request cannot be stored again, nor
// sent under another query (device, user, file name, recall request), and a recall request is
// answered only by an upload of the device (or user) it asks for, in its own project.

let h: RecallHarness;
let a: TestProject;
let b: TestProject;

beforeAll(async () => {
  h = await startRecallHarness();
  a = await h.project('replay_a');
  b = await h.project('replay_b');
});
afterAll(async () => {
  await h?.close();
});

async function fileBytes(p: TestProject, message: string) {
  const { key, key_version } = (await (await h.device(p, 'GET', '/device/v1/key')).json()) as {
    key: string;
    key_version: number;
  };
  const bytes = encodeLogFile(
    [{ ts: '2026-11-20T10:00:00Z', level: 'INFO', message }],
    Buffer.from(key, 'base64'),
  );
  return { bytes, key_version };
}

const uploadPath = (meta: object) =>
  `/device/v1/files?${new URLSearchParams(Object.entries(meta).map(([k, v]): [string, string] => [k, String(v)]))}`;

async function trigger(p: TestProject, target: { device_id?: string; user_id?: string }) {
  const res = await fetch(`${h.url}/console/v1/projects/${p.projectId}/recalls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${p.session}`, 'content-type': 'application/json' },
    body: JSON.stringify(target),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { request_id: string }).request_id;
}

const pending = async (p: TestProject, query: string) =>
  (
    (await (await h.device(p, 'GET', `/device/v1/recalls?${query}`)).json()).items as { request_id: string }[]
  ).map((r) => r.request_id);

const filesOf = async (p: TestProject) =>
  (
    (await h.tool(p.projectId, 'log.list_files', { limit: 100 })).body.items as {
      file_id: string;
      device_id: string;
      file_name: string;
    }[]
  ).map((f) => `${f.device_id}/${f.file_name}`);

describe('device uploads cannot be replayed or redirected', () => {
  it('refuses the same signed upload again (409), and its signature under another query (401)', async () => {
    const { bytes, key_version } = await fileBytes(a, 'captured');
    const path = uploadPath({ device_id: 'dev_1', file_name: 'app.ndjson', date: '2026-11-20', key_version });
    const first = await h.device(a, 'POST', path, bytes);
    expect(first.status).toBe(201);

    const again = await h.sendDevice('POST', path, first.sent.headers, bytes);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: 'conflict',
      message: expect.stringContaining('replayed'),
    });

    const pendingOfB = await trigger(b, { device_id: 'dev_b' });
    for (const meta of [
      { device_id: 'dev_2', file_name: 'app.ndjson', date: '2026-11-20', key_version },
      { device_id: 'dev_1', file_name: 'other.ndjson', date: '2026-11-20', key_version },
      { device_id: 'dev_1', file_name: 'app.ndjson', date: '2026-11-20', key_version, user_id: 'u_9' },
      {
        device_id: 'dev_1',
        file_name: 'app.ndjson',
        date: '2026-11-20',
        key_version,
        request_id: pendingOfB,
      },
    ]) {
      const redirected = await h.sendDevice('POST', uploadPath(meta), first.sent.headers, bytes);
      expect([JSON.stringify(meta), redirected.status]).toEqual([JSON.stringify(meta), 401]);
    }
    expect(await filesOf(a)).toEqual(['dev_1/app.ndjson']);
    expect(await pending(b, 'device_id=dev_b')).toEqual([pendingOfB]);
  });

  it('refuses the same bytes signed again (409 naming the stored file): a file is stored once', async () => {
    const { bytes, key_version } = await fileBytes(a, 'sent twice');
    const path = uploadPath({
      device_id: 'dev_3',
      file_name: 'twice.ndjson',
      date: '2026-11-20',
      key_version,
    });
    const first = await h.device(a, 'POST', path, bytes);
    expect(first.status).toBe(201);
    const { file_id } = await first.json();
    const elsewhere = uploadPath({
      device_id: 'dev_4',
      file_name: 'moved.ndjson',
      date: '2026-11-20',
      key_version,
    });
    const resigned = await h.device(a, 'POST', elsewhere, bytes);
    expect(resigned.status).toBe(409);
    expect(await resigned.json()).toMatchObject({
      error: 'conflict',
      message: expect.stringContaining('uploaded before'),
      details: { file_id },
    });
    expect((await filesOf(a)).filter((f) => f.includes('twice') || f.includes('moved'))).toEqual([
      'dev_3/twice.ndjson',
    ]);
  });

  it("answers a recall only from its own project's device (or user); later files of the round are kept", async () => {
    const forDevice = await trigger(a, { device_id: 'dev_5' });
    const forUser = await trigger(a, { user_id: 'u_5' });
    const ofB = await trigger(b, { device_id: 'dev_5' });
    const upload = async (meta: Record<string, string>, message: string) => {
      const { bytes, key_version } = await fileBytes(a, message);
      return h.device(a, 'POST', uploadPath({ date: '2026-11-20', key_version, ...meta }), bytes);
    };

    // Another project's request, another device's, an unknown one: refused, nothing stored or answered.
    for (const [meta, name] of [
      [{ device_id: 'dev_5', request_id: ofB }, 'of-b'],
      [{ device_id: 'dev_6', request_id: forDevice }, 'other-device'],
      [{ device_id: 'dev_6', user_id: 'u_6', request_id: forUser }, 'other-user'],
      [{ device_id: 'dev_5', request_id: 'rq_unknown' }, 'unknown'],
    ] as const) {
      const res = await upload({ ...meta, file_name: `${name}.ndjson` }, name);
      expect([name, res.status]).toEqual([name, 400]);
      expect(await res.json()).toMatchObject({ message: expect.stringContaining('request_id') });
    }
    expect(await pending(b, 'device_id=dev_5')).toEqual([ofB]);
    expect((await filesOf(a)).filter((f) => f.startsWith('dev_5/') || f.startsWith('dev_6/'))).toEqual([]);

    // The device answers its request; the next day's file of the same round is kept, not answering again.
    expect(
      (await upload({ device_id: 'dev_5', request_id: forDevice, file_name: 'day-2.ndjson' }, 'd2')).status,
    ).toBe(201);
    expect(
      (await upload({ device_id: 'dev_5', request_id: forDevice, file_name: 'day-1.ndjson' }, 'd1')).status,
    ).toBe(201);
    // Any device of the user answers a request for the user.
    expect(
      (await upload({ device_id: 'dev_7', user_id: 'u_5', request_id: forUser, file_name: 'u.ndjson' }, 'u'))
        .status,
    ).toBe(201);
    expect(await pending(a, 'device_id=dev_5&user_id=u_5')).toEqual([]);
    const answered = await h.db.query<{ request_id: string; file_name: string }>(
      `SELECT r.request_id, f.file_name FROM recall_requests r JOIN recall_files f ON f.file_id = r.file_id
       WHERE r.request_id IN ($1, $2) ORDER BY f.file_name`,
      [forDevice, forUser],
    );
    expect(answered.rows).toEqual([
      { request_id: forDevice, file_name: 'day-2.ndjson' },
      { request_id: forUser, file_name: 'u.ndjson' },
    ]);
  });
});

describe('device polls and key fetches are signed with their query and single-use', () => {
  it("a poll's signature does not serve another device, nor the same poll twice", async () => {
    const request = await trigger(a, { device_id: 'dev_p' });
    const poll = await h.device(a, 'GET', '/device/v1/recalls?device_id=dev_p');
    expect(await poll.json()).toEqual({ items: [expect.objectContaining({ request_id: request })] });
    const otherDevice = await h.sendDevice('GET', '/device/v1/recalls?device_id=dev_q', poll.sent.headers);
    expect(otherDevice.status).toBe(401);
    const withUser = await h.sendDevice(
      'GET',
      '/device/v1/recalls?device_id=dev_p&user_id=u',
      poll.sent.headers,
    );
    expect(withUser.status).toBe(401);
    expect((await h.sendDevice('GET', poll.sent.path, poll.sent.headers)).status).toBe(409);
  });

  it('a key fetch is single-use, and its signature is for that path and method only', async () => {
    const key = await h.device(a, 'GET', '/device/v1/key');
    expect(key.status).toBe(200);
    expect((await h.sendDevice('GET', '/device/v1/key', key.sent.headers)).status).toBe(409);
    expect((await h.sendDevice('GET', '/device/v1/recalls?device_id=d', key.sent.headers)).status).toBe(401);
    expect((await h.sendDevice('POST', '/device/v1/key', key.sent.headers)).status).not.toBe(200);
  });

  it('refuses a body-only (v1) signature', async () => {
    const { signIngestBody } = await import('@svc/ingest-auth');
    const ts = Math.floor(h.clock.now / 1000);
    const res = await h.sendDevice('GET', '/device/v1/key', {
      'x-svc-key': a.key.key_id,
      'x-svc-timestamp': String(ts),
      'x-svc-signature': signIngestBody(a.key.secret, ts, ''),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ message: expect.stringContaining('v2') });
  });

  it('forgets nonces once their signatures are stale, and a fresh request still passes', async () => {
    const count = async () =>
      Number((await h.db.query<{ n: string }>('SELECT count(*) AS n FROM recall_device_nonces')).rows[0]!.n);
    expect(await h.device(a, 'GET', '/device/v1/key')).toMatchObject({ status: 200 });
    expect(await count()).toBeGreaterThan(0);
    const saved = h.clock.now;
    try {
      h.clock.now += 3_600_000;
      expect(await h.device(a, 'GET', '/device/v1/key')).toMatchObject({ status: 200 });
      expect(await count()).toBe(1);
    } finally {
      h.clock.now = saved;
    }
  });
});
