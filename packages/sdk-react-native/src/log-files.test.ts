import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogFiles } from './log-files';
import { fileStorage } from './node/file-storage';

// The day files on the Node storage (files): what is read back is what was written, each day is
// bounded (oldest chunks first), old days go, and chunks an upload reads are kept meanwhile.

const DAY = Date.parse('2026-11-20T08:00:00.000Z');
const HOUR = 3_600_000;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function opened(limits = {}) {
  const files = new LogFiles(fileStorage(dir), limits);
  await files.load();
  return files;
}
const linesOf = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

it('writes entries as NDJSON lines: ts, level, tag, message, then the fields (reserved names cannot be overridden)', async () => {
  const files = await opened();
  files.write('WARN', 'payment retried', { attempt: 2, level: 'DEBUG', ts: 'x' }, 'Checkout', DAY);
  files.write('INFO', 'no tag', undefined, undefined, DAY + 1);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  files.write('ERROR', 'a cycle in the fields', cyclic, undefined, DAY + 2);
  files.write('INFO', 'x'.repeat(40_000), undefined, undefined, DAY + 3);
  await files.flush();
  const lines = linesOf(await files.read('2026-11-20', files.seqsOf('2026-11-20')));
  expect(lines.slice(0, 3)).toEqual([
    {
      ts: '2026-11-20T08:00:00.000Z',
      level: 'WARN',
      tag: 'Checkout',
      message: 'payment retried',
      attempt: 2,
    },
    { ts: '2026-11-20T08:00:00.001Z', level: 'INFO', message: 'no tag' },
    { ts: '2026-11-20T08:00:00.002Z', level: 'ERROR', message: 'a cycle in the fields' },
  ]);
  // A line past 32 KiB is cut to stay far below the reader's 128 KiB line bound.
  expect(lines[3]).toEqual({
    ts: '2026-11-20T08:00:00.003Z',
    level: 'INFO',
    message: `${'x'.repeat(8192)}…[truncated]`,
    truncated: true,
  });
});

it('goes on after a restart with the next chunk, one file per UTC day', async () => {
  const before = await opened();
  before.write('INFO', 'day one', undefined, undefined, DAY);
  before.write('INFO', 'day two', undefined, undefined, DAY + 20 * HOUR);
  await before.flush();
  const after = await opened();
  after.write('INFO', 'day two, later', undefined, undefined, DAY + 21 * HOUR);
  await after.flush();
  expect(after.days()).toEqual(['2026-11-21', '2026-11-20']);
  const day2 = linesOf(await after.read('2026-11-21', after.seqsOf('2026-11-21')));
  expect(day2.map((l) => l.message)).toEqual(['day two', 'day two, later']);
});

it('bounds a day: past maxDayBytes its oldest lines go first, counted', async () => {
  const files = await opened({ maxDayBytes: 64 * 1024 });
  const line = (i: number) => `line ${String(i).padStart(5, '0')} ${'y'.repeat(1000)}`;
  for (let i = 0; i < 300; i++) files.write('INFO', line(i), undefined, undefined, DAY + i);
  await files.flush();
  const kept = linesOf(await files.read('2026-11-20', files.seqsOf('2026-11-20')));
  const bytes = kept.reduce((n, l) => n + JSON.stringify(l).length + 1, 0);
  expect(bytes).toBeLessThanOrEqual(64 * 1024);
  // The newest lines, in order, ending with the last one written.
  expect(kept.map((l) => l.message)).toEqual(
    Array.from({ length: kept.length }, (_, k) => line(300 - kept.length + k)),
  );
  expect(files.droppedLines).toBe(300 - kept.length);
});

it('keeps keepDays days; chunks an upload reads stay until it is done', async () => {
  const files = await opened({ keepDays: 2 });
  files.write('INFO', 'oldest', undefined, undefined, DAY);
  await files.flush();
  files.protect('upload-1', files.seqsOf('2026-11-20'));
  for (const [i, day] of ['2026-11-21', '2026-11-22'].entries()) {
    files.write('INFO', `on ${day}`, undefined, undefined, DAY + (i + 1) * 24 * HOUR);
    await files.flush();
  }
  expect(await files.read('2026-11-20', files.seqsOf('2026-11-20'))).toContain('oldest');
  files.release('upload-1');
  files.write('INFO', 'later', undefined, undefined, DAY + 2 * 24 * HOUR + 1);
  await files.flush();
  expect(files.seqsOf('2026-11-20')).toEqual([]);
  expect(files.days()).toEqual(['2026-11-22', '2026-11-21']);
});
