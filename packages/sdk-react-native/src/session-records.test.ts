import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodePlatform } from './node/node-platform';
import type { SessionRecord } from './records';
import { createMobileSdk, type MobileSdk } from './sdk';
import { type Sink, startSink } from './testing/sink';

// Records carry the session the app is in when they are made: the memory sample taken on the
// return to the foreground belongs to the session that return leads to, and no record lies
// outside its session's time.

let sink: Sink;
let dir: string;
let sdk: MobileSdk | undefined;
beforeAll(async () => {
  sink = await startSink();
});
afterAll(() => sink.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sdk-sessions-'));
  sink.batches.length = 0;
});
afterEach(async () => {
  await sdk?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

/** The latest report of each session, as the core keeps it. */
const latestSessions = () =>
  new Map((sink.records('sessions') as unknown as SessionRecord[]).map((s) => [s.session_id, s]));

it('the memory sample taken on a return after the timeout is of the new session, within its time', async () => {
  const platform = nodePlatform({ dir });
  sdk = createMobileSdk(
    {
      dsn: sink.dsn,
      appVersion: '5.0.0',
      appStart: 'manual',
      // One sample at launch and one on each return to the foreground.
      sampleIntervalMs: 3_600_000,
      // Every return starts a new session, as a return after more than 30 s does.
      sessionTimeoutMs: 0,
    },
    platform,
  );
  await sdk.ready;
  const first = sdk.sessionId()!;
  platform.app.setVisibility('background');
  platform.app.setVisibility('active');
  await sdk.flush();
  const second = sdk.sessionId()!;
  expect(second).not.toBe(first);

  const sessions = latestSessions();
  const samples = sink.records('metrics').filter((m) => m.name === 'memory_mb');
  expect(samples.map((m) => m.session_id)).toEqual([first, second]);
  // Each sample within its session: not before its start, not after its end.
  const outside = samples.filter((sample) => {
    const session = sessions.get(String(sample.session_id))!;
    const at = Number(sample.timestamp);
    return (
      at < Number(session.started_at) || (session.ended_at !== undefined && at > Number(session.ended_at))
    );
  });
  expect(outside).toEqual([]);
  expect(sessions.get(first)).toMatchObject({ status: 'ok', ended_at: expect.any(Number) });
  expect(sessions.get(second)!.ended_at).toBeUndefined();
});
