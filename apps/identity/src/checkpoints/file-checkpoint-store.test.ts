import { constants, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Checkpoint, checkpointLine, readCheckpointLine } from '@svc/audit';
import { type LogLine, recordingLogger } from '../testing/harness';
import type { CheckpointEntry, CheckpointStore } from './checkpoint-store';
import { CHECKPOINT_LOG_FILE, openFileCheckpointStore } from './file-checkpoint-store';

const KEY = 'file-store-test-key-0123456789-abcdef';
const at = '2030-01-01T00:00:00.000Z';
const cp = (project_id: string, seq: number): Checkpoint => ({
  project_id,
  seq,
  hash: seq.toString(16).padStart(64, '0'),
  at,
});

async function all(store: CheckpointStore): Promise<CheckpointEntry[]> {
  const entries: CheckpointEntry[] = [];
  for await (const entry of store.read()) entries.push(entry);
  return entries;
}

let dir: string;
let logs: LogLine[];
const open = (key = KEY) => openFileCheckpointStore({ dir, key, logger: recordingLogger(logs) });
const logFile = () => join(dir, CHECKPOINT_LOG_FILE);

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'svc-file-store-')), 'checkpoints');
  logs = [];
});
afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

/** The open flags of this process's descriptor of `path` (Linux: /proc/self/fdinfo), or undefined. */
function openFlagsOf(path: string): number | undefined {
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== path) continue;
    const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
    return flags === undefined ? undefined : Number.parseInt(flags, 8);
  }
  return undefined;
}

const onLinux = process.platform === 'linux' ? it : it.skip;

describe('file checkpoint store', () => {
  onLinux(
    'writes through a descriptor whose every write is on disk when it returns (O_DSYNC), at the end',
    async () => {
      const store = await open();
      await store.append([cp('prj_a', 1)]);
      const flags = openFlagsOf(logFile());
      expect(flags).toBeDefined();
      expect(flags! & constants.O_DSYNC).toBe(constants.O_DSYNC);
      expect(flags! & constants.O_APPEND).toBe(constants.O_APPEND);
      await store.close();
    },
  );

  it('appends one signed canonical line per checkpoint and reads them back in order', async () => {
    const store = await open();
    await store.append([cp('prj_a', 1), cp('prj_b', 4)]);
    await store.append([cp('prj_a', 3)]);
    const text = await readFile(logFile(), 'utf8');
    expect(text).toBe(
      `${checkpointLine(KEY, cp('prj_a', 1))}\n${checkpointLine(KEY, cp('prj_b', 4))}\n${checkpointLine(KEY, cp('prj_a', 3))}\n`,
    );
    expect(await all(store)).toEqual(
      text
        .trimEnd()
        .split('\n')
        .map((line, i) => ({ line: i + 1, ...readCheckpointLine(KEY, line) })),
    );
    expect(store.location).toBe(logFile());
    expect((await stat(logFile())).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    await store.close();
  });

  it('writes nothing for an empty chain, and refuses appends once closed', async () => {
    const store = await open();
    await store.append([{ ...cp('prj_a', 1), seq: 0 }]);
    expect(await readFile(logFile(), 'utf8')).toBe('');
    await store.close();
    await expect(store.append([cp('prj_a', 1)])).rejects.toThrow(/is closed/);
  });

  it('group-commits concurrent appends: the newest checkpoint per project stands in for older ones', async () => {
    const store = await open();
    const appends = Array.from({ length: 50 }, (_, i) =>
      store.append([cp('prj_busy', i + 1), cp(`prj_${i % 2}`, i + 1)]),
    );
    await Promise.all(appends);
    const entries = await all(store);
    const valid = entries.flatMap((e) => (e.kind === 'valid' ? [e.checkpoint] : []));
    expect(valid).toHaveLength(entries.length);
    // The first append writes at once; the other 49 share one write.
    expect(valid.filter((c) => c.project_id === 'prj_busy').map((c) => c.seq)).toEqual([1, 50]);
    expect(valid.filter((c) => c.project_id === 'prj_1').map((c) => c.seq)).toEqual([50]);
    expect(valid.filter((c) => c.project_id === 'prj_0').map((c) => c.seq)).toEqual([1, 49]);
    await store.close();
  });

  it('reports a torn last line as such, and cuts it off when opened again', async () => {
    const store = await open();
    await store.append([cp('prj_a', 1)]);
    await appendFile(logFile(), checkpointLine(KEY, cp('prj_a', 2)).slice(0, 30));
    expect(await all(store)).toEqual([
      expect.objectContaining({ kind: 'valid', line: 1 }),
      { kind: 'torn', line: 2, bytes: 30 },
    ]);
    await store.close();
    const reopened = await open();
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        obj: expect.objectContaining({ event: 'audit_checkpoint_torn_line', dropped_bytes: 30 }),
      }),
    );
    expect(await readFile(logFile(), 'utf8')).toBe(`${checkpointLine(KEY, cp('prj_a', 1))}\n`);
    await reopened.append([cp('prj_a', 2)]);
    expect((await all(reopened)).map((e) => e.kind)).toEqual(['valid', 'valid']);
    await reopened.close();
  });

  it('cuts off a file that is one torn line', async () => {
    const store = await open();
    await store.close();
    await appendFile(logFile(), '{"v":1,"kid":');
    const reopened = await open();
    expect(await readFile(logFile(), 'utf8')).toBe('');
    await reopened.close();
  });

  it('tells forged, unreadable and oversized lines apart', async () => {
    const store = await open();
    await store.append([cp('prj_a', 1)]);
    const forged = JSON.stringify({ ...JSON.parse(checkpointLine(KEY, cp('prj_a', 1))), seq: 2 });
    await appendFile(logFile(), `${forged}\nnot json\n${'x'.repeat(20_000)}\n`);
    await store.append([cp('prj_a', 2)]);
    expect(await all(store)).toEqual([
      expect.objectContaining({ kind: 'valid', line: 1 }),
      {
        kind: 'forged',
        line: 2,
        project_id: 'prj_a',
        seq: 2,
        reason: 'the signature does not match its content',
      },
      { kind: 'unreadable', line: 3, reason: 'not JSON' },
      { kind: 'unreadable', line: 4, reason: 'longer than 16384 bytes' },
      expect.objectContaining({ kind: 'valid', line: 5 }),
    ]);
    expect(logs).toContainEqual(
      expect.objectContaining({ obj: expect.objectContaining({ event: 'audit_checkpoint_log_changed' }) }),
    );
    await store.close();
  });

  it('reads nothing from a log that is not there', async () => {
    const store = await open();
    await rm(logFile());
    expect(await all(store)).toEqual([]);
    await store.close();
  });

  it('refuses to open a log signed with another key', async () => {
    const store = await open();
    await store.append([cp('prj_a', 1)]);
    await store.close();
    await expect(open('a-different-key-0123456789-abcdefghij')).rejects.toThrow(
      /is signed with key id [0-9a-f]{16}, but the configured key has id [0-9a-f]{16}: restore the key/,
    );
    const again = await open();
    await again.close();
  });
});
