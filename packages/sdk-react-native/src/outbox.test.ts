import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTraceId, parseDsn } from '@svc/sdk-core';
import { fileStorage } from './node/file-storage';
import { nodeCrypto } from './node/node-crypto';
import { nodeFetch } from './node/node-platform';
import { Outbox } from './outbox';
import type { KeyValueStorage } from './platform';
import type { SessionRecord } from './records';
import { Sessions } from './sessions';
import { SignedClient } from './signed-client';
import { type Sink, startSink } from './testing/sink';

// Crash and session reports: written to storage before they are sent, sent in order, each batch
// with its own Idempotency-Key kept across retries and restarts.

let sink: Sink;
let dir: string;
let storage: KeyValueStorage;
beforeAll(async () => {
  sink = await startSink();
});
afterAll(() => sink.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-outbox-'));
  storage = fileStorage(dir);
  sink.batches.length = 0;
  sink.requests.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function outbox() {
  const client = new SignedClient(parseDsn(sink.dsn), nodeCrypto, nodeFetch());
  const events = { rejected: [] as number[], dropped: 0 };
  const box = new Outbox(storage, client, newTraceId, {
    rejected: (status) => void events.rejected.push(status),
    dropped: () => void events.dropped++,
  });
  return { box, events };
}
const session = (id: string, status: SessionRecord['status'] = 'ok'): SessionRecord => ({
  session_id: id,
  user_id: 'u1',
  started_at: 1_700_000_000_000,
  status,
  platform: 'android',
  app_version: '1.0.0',
});

it('sends in the order written; a 503 stops it with nothing lost, the retry carries the same Idempotency-Key', async () => {
  const { box } = outbox();
  await box.load();
  await box.enqueue({ sessions: [session('a')] });
  await box.enqueue({ sessions: [session('b')] });
  sink.script(503);
  await box.drain();
  expect(sink.batches).toEqual([]);
  expect(box.pending).toBe(2);
  box.stop();

  // The next launch: a new outbox on the same storage sends both, in order.
  const { box: next } = outbox();
  await next.load();
  await next.drain();
  expect(sink.records('sessions').map((s) => s.session_id)).toEqual(['a', 'b']);
  const keys = sink.requests.map((h) => h['idempotency-key']);
  expect(keys[0]).toBe(keys[1]);
  expect(new Set(keys).size).toBe(2);
  expect(next.pending).toBe(0);
  expect(sink.badSignatures).toBe(0);
});

it('drops a batch the core refuses (4xx), tells why, and goes on with the next', async () => {
  const { box, events } = outbox();
  await box.load();
  await box.enqueue({ sessions: [session('refused')] });
  await box.enqueue({ sessions: [session('fine')] });
  sink.script(400);
  await box.drain();
  expect(events.rejected).toEqual([400]);
  expect(sink.records('sessions').map((s) => s.session_id)).toEqual(['fine']);
  expect(box.pending).toBe(0);
});

it("a session's later report supersedes the one still waiting", async () => {
  const { box } = outbox();
  await box.load();
  await box.enqueue({ sessions: [session('s')] }, 'session:s');
  await box.enqueue({ sessions: [{ ...session('s'), ended_at: 1_700_000_060_000 }] }, 'session:s');
  expect(box.pending).toBe(1);
  await box.drain();
  expect(sink.records('sessions')).toEqual([{ ...session('s'), ended_at: 1_700_000_060_000 }]);
});

describe('sessions', () => {
  const start = Date.parse('2026-11-20T08:00:00.000Z');
  function sessions() {
    const { box } = outbox();
    const tracker = new Sessions(
      storage,
      box,
      newTraceId,
      { platform: 'ios', app_version: '2.0.0' },
      () => 'u9',
      30_000,
    );
    return { box, tracker };
  }
  const reports = () => sink.records('sessions') as unknown as SessionRecord[];

  it('ends in the background, goes on if back within the timeout, else a new one starts', async () => {
    const { box, tracker } = sessions();
    await box.load();
    await tracker.start(start);
    const first = tracker.id!;
    await tracker.background(start + 60_000);
    await tracker.foreground(start + 70_000);
    expect(tracker.id).toBe(first);
    await tracker.background(start + 80_000);
    await tracker.foreground(start + 200_000);
    expect(tracker.id).not.toBe(first);
    await box.drain();
    const latest = new Map(reports().map((r) => [r.session_id, r]));
    expect(latest.get(first)).toMatchObject({ status: 'ok', started_at: start, ended_at: start + 80_000 });
    expect(latest.get(tracker.id!)).toMatchObject({ status: 'ok', started_at: start + 200_000 });
    expect(latest.get(tracker.id!)!.ended_at).toBeUndefined();
  });

  it('a session that never ended is reported abnormal at the next start, ended when last seen', async () => {
    const { box, tracker } = sessions();
    await box.load();
    await tracker.start(start);
    const vanished = tracker.id!;
    await tracker.heartbeat(start + 45_000);
    box.stop();
    // The process died in the foreground: no background, no JS crash.
    const { box: nextBox, tracker: next } = sessions();
    await nextBox.load();
    await next.start(start + 600_000);
    await nextBox.drain();
    const latest = new Map(reports().map((r) => [r.session_id, r]));
    expect(latest.get(vanished)).toMatchObject({
      status: 'abnormal',
      ended_at: start + 45_000,
      user_id: 'u9',
    });
    expect(latest.get(next.id!)).toMatchObject({ status: 'ok', platform: 'ios', app_version: '2.0.0' });
  });

  it('a crashed session stays crashed: no abnormal report for it at the next start', async () => {
    const { box, tracker } = sessions();
    await box.load();
    await tracker.start(start);
    const crashed = tracker.crashed(start + 5_000);
    await tracker.save();
    expect(crashed).toMatchObject({ status: 'crashed', ended_at: start + 5_000 });
    const { box: nextBox, tracker: next } = sessions();
    await nextBox.load();
    await next.start(start + 60_000);
    await nextBox.drain();
    expect(
      reports()
        .filter((r) => r.session_id === crashed!.session_id)
        .map((r) => r.status),
    ).toEqual(['ok']);
  });
});
