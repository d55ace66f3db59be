import { gzipSync } from 'node:zlib';
import { encryptFileBytes } from './file-codec';
import { DEFAULT_READ_LIMITS } from './read-budget';
import { eventually, type RecallHarness, startRecallHarness, type TestProject } from './testing/harness';

// Read slots through the real service: one project holding its whole share of slots (its reads
// held at a gate in front of the file store, so nothing is timed) leaves the others to other
// projects, and every way a read ends gives its slot back (the gauges an end-to-end check reads).

let h: RecallHarness;
let a: TestProject;
let b: TestProject;
const LINES = 50;
const ndjson = Array.from(
  { length: LINES },
  (_, i) => `${JSON.stringify({ ts: `t${i}`, level: 'INFO', message: `line ${i + 1}` })}\n`,
).join('');

async function upload(p: TestProject, name: string): Promise<string> {
  const { key, key_version } = (await (await h.device(p, 'GET', '/device/v1/key')).json()) as {
    key: string;
    key_version: number;
  };
  const body = encryptFileBytes(gzipSync(Buffer.from(ndjson)), Buffer.from(key, 'base64'));
  const qs = new URLSearchParams({
    device_id: 'dev_f',
    file_name: name,
    date: '2026-11-20',
    key_version: `${key_version}`,
  });
  const res = await h.device(p, 'POST', `/device/v1/files?${qs}`, body);
  expect(res.status).toBe(201);
  return (await res.json()).file_id as string;
}

/** A read whose answer (or failure) is kept, and whether it came yet. */
function startRead(p: TestProject, fileId: string, signal?: AbortSignal) {
  const read = {
    settled: false,
    answer: h
      .tool(p.projectId, 'log.file_entries', { file_id: fileId, limit: 100 }, undefined, signal)
      .catch((err: unknown) => ({ status: 0, body: { error: String(err) } }))
      .finally(() => {
        read.settled = true;
      }),
  };
  return read;
}

const held = async () => (await h.gauge('recall_read_slots_held')) ?? 0;
const waiting = async () => (await h.gauge('recall_read_waiting')) ?? 0;

beforeAll(async () => {
  h = await startRecallHarness();
  a = await h.project('fair_a');
  b = await h.project('fair_b');
});
afterAll(async () => {
  await h?.close();
});
afterEach(() => {
  Object.assign(h.limits, DEFAULT_READ_LIMITS);
});

describe('read slots shared fairly between projects', () => {
  it("serves another project's small file while one project holds its whole share", async () => {
    const fileA = await upload(a, 'a.log');
    const fileB = await upload(b, 'b.log');
    h.gate.hold(fileA);
    // As many reads of A as the service has slots: before, they took every one.
    const readsOfA = Array.from({ length: DEFAULT_READ_LIMITS.concurrentReads }, () => startRead(a, fileA));
    await eventually(
      "A's reads held at the gate or waiting",
      async () => h.gate.blocked + (await waiting()) === readsOfA.length,
    );

    const readOfB = await h.tool(b.projectId, 'log.file_entries', { file_id: fileB, limit: 100 });
    expect(readOfB.status).toBe(200);
    expect(readOfB.body).toMatchObject({ status: 'ok', has_more: false, scanned_through_line: LINES });
    expect((readOfB.body.items as unknown[]).length).toBe(LINES);
    // The marker: B was answered while every read of A was still held or waiting.
    expect(readsOfA.map((r) => r.settled)).toEqual(readsOfA.map(() => false));
    expect(h.gate.blocked).toBe(DEFAULT_READ_LIMITS.concurrentReadsPerProject);

    h.gate.letGo(fileA);
    for (const read of readsOfA) expect((await read.answer).status).toBe(200);
    await eventually('every slot given back', async () => (await held()) === 0 && (await waiting()) === 0);
  });

  it('gives the slot back on every way out: answer, error, time budget, caller gone waiting or reading', async () => {
    const file = await upload(a, 'ways-out.log');
    const failing = await upload(a, 'store-fails.log');
    h.gate.hold(file);
    h.gate.hold(failing);
    // A's share: one read that will lose its caller, one whose store read fails.
    const gone = new AbortController();
    const leaving = startRead(a, file, gone.signal);
    const storeFails = startRead(a, failing);
    await eventually('two reads of A at the gate', () => h.gate.blocked === 2);
    expect(await held()).toBe(2);

    // A third read waits for a slot; its caller goes away.
    const goneWaiting = new AbortController();
    const waitingLeaves = startRead(a, file, goneWaiting.signal);
    await eventually('a read of A waiting', async () => (await waiting()) === 1);
    goneWaiting.abort();
    await waitingLeaves.answer;
    await eventually('the waiter gone', async () => (await waiting()) === 0);

    // A fourth waits past its time: the time budget error, its wait given up.
    h.limits.callMs = 200;
    const late = await startRead(a, file).answer;
    expect(late).toMatchObject({ status: 504, body: { details: { budget: 'time', limit_ms: 200 } } });
    expect(await waiting()).toBe(0);
    h.limits.callMs = DEFAULT_READ_LIMITS.callMs;

    // The reading caller goes away, then its read goes on and stops at its next turn.
    gone.abort();
    await leaving.answer;
    h.gate.letGo(file);
    h.gate.letGo(failing, new Error('disk gone'));
    expect((await storeFails.answer).status).toBe(500);
    await eventually('every slot given back', async () => (await held()) === 0);

    // A read that runs out of time while reading (its time is up before its first turn).
    h.gate.hold(file);
    h.limits.callMs = 0;
    const outOfTime = startRead(a, file);
    await eventually('a read at the gate', () => h.gate.blocked === 1);
    h.gate.letGo(file);
    expect(await outOfTime.answer).toMatchObject({ status: 504, body: { details: { budget: 'time' } } });
    h.limits.callMs = DEFAULT_READ_LIMITS.callMs;

    // And the plain answer.
    expect((await startRead(a, file).answer).status).toBe(200);
    await eventually('nothing held or waiting', async () => (await held()) === 0 && (await waiting()) === 0);
  });
});
