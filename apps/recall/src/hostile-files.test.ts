import { gzipSync } from 'node:zlib';
import { logFileEntriesOutput } from '@svc/tools-recall';
import { encryptFileBytes, MAX_DECOMPRESSED_BYTES } from './file-codec';
import { DEFAULT_READ_LIMITS } from './read-budget';
import { type RecallHarness, startRecallHarness, type TestProject } from './testing/harness';

// The files of the hostile-input run, uploaded and read through the real service, in a process
// whose heap is the production one (the package's test script sets --max-old-space-size=256): a
// read that held a whole file's lines would end this run with a heap exhaustion.

let h: RecallHarness;
let p: TestProject;
const MiB = 1024 * 1024;
const LINE = `${JSON.stringify({ ts: '1', level: 'I', message: 'm' })}\n`;
/** 2.76 M short valid lines: a 297 KB upload. */
const SHORT_LINES = 2_760_000;
/** Lines of LINE that fit whole in the inflate limit of a file that inflates past it. */
const COMPLETE_BEFORE_LIMIT = Math.floor(MAX_DECOMPRESSED_BYTES / LINE.length);
const files: Record<'lines' | 'newlines' | 'past' | 'nbsp', string> = {
  lines: '',
  newlines: '',
  past: '',
  nbsp: '',
};
/** Lines of a no-break space: blank to trim(), three bytes each. */
const NBSP_LINES = Math.floor((99 * MiB) / 3);

async function upload(plain: Buffer, name: string): Promise<string> {
  const { key, key_version } = (await (await h.device(p, 'GET', '/device/v1/key')).json()) as {
    key: string;
    key_version: number;
  };
  const body = encryptFileBytes(gzipSync(plain), Buffer.from(key, 'base64'));
  const qs = new URLSearchParams({
    device_id: 'dev_h',
    file_name: name,
    date: '2026-11-20',
    key_version: `${key_version}`,
  });
  const res = await h.device(p, 'POST', `/device/v1/files?${qs}`, body);
  expect(res.status).toBe(201);
  return (await res.json()).file_id as string;
}

async function read(fileId: string, input: Record<string, unknown> = {}) {
  const res = await h.tool(p.projectId, 'log.file_entries', { file_id: fileId, ...input });
  expect(res.status).toBe(200);
  return logFileEntriesOutput.parse(res.body);
}

/** Downloads through the console, counting lines and bytes as they arrive (never the whole text). */
async function download(fileId: string) {
  const res = await fetch(`${h.url}/console/v1/projects/${p.projectId}/files/${fileId}/download`, {
    headers: { authorization: `Bearer ${p.session}` },
  });
  if (res.status !== 200) return { status: res.status, body: await res.json(), lines: 0, bytes: 0, last: '' };
  let lines = 0;
  let bytes = 0;
  let last = Buffer.alloc(0);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
    last = Buffer.from(chunk.subarray(Math.max(0, chunk.length - LINE.length)));
  }
  return { status: res.status, body: null, lines, bytes, last: last.toString() };
}

beforeAll(async () => {
  h = await startRecallHarness();
  p = await h.project('hostile_files');
  files.lines = await upload(Buffer.alloc(LINE.length * SHORT_LINES, LINE), 'millions-of-lines.log');
  files.newlines = await upload(Buffer.alloc(99 * MiB, '\n'), 'newlines.log');
  files.past = await upload(Buffer.alloc(MAX_DECOMPRESSED_BYTES + 10 * LINE.length, LINE), 'past-100-mb.log');
  files.nbsp = await upload(Buffer.alloc(NBSP_LINES * 3, '\u00a0\n'), 'nbsp-lines.log');
});
afterAll(async () => {
  await h?.close();
});

describe('hostile files, read through the service at the production heap', () => {
  it('millions of short lines: a 2-entry page reads 2 entries, not the file', async () => {
    const page = await read(files.lines, { limit: 2 });
    expect(page.items.map((e) => e.line)).toEqual([1, 2]);
    expect(page).toMatchObject({ status: 'ok', lines_read: 2, has_more: true, scanned_through_line: 2 });
  });

  it('millions of short lines: a filter matching nothing scans a bounded slice per call and goes on', async () => {
    const budget = DEFAULT_READ_LIMITS.parsedLines;
    const first = await read(files.lines, { level: 'error' });
    expect(first).toMatchObject({
      items: [],
      has_more: true,
      lines_read: budget,
      scanned_through_line: budget,
    });
    const next = await read(files.lines, { level: 'error', after_line: first.scanned_through_line });
    expect(next).toMatchObject({ has_more: true, lines_read: budget, scanned_through_line: 2 * budget });
    // The last slice: the end of the file.
    const last = await read(files.lines, { level: 'error', after_line: SHORT_LINES - 10 });
    expect(last).toMatchObject({ has_more: false, lines_read: 10, scanned_through_line: SHORT_LINES });
  });

  it('millions of short lines: four reads at once all answer', async () => {
    const pages = await Promise.all(
      [0, 1, 2, 3].map((i) => read(files.lines, { level: 'error', after_line: i * 500_000 })),
    );
    expect(pages.map((pg) => pg.scanned_through_line)).toEqual(
      [0, 1, 2, 3].map((i) => i * 500_000 + DEFAULT_READ_LIMITS.parsedLines),
    );
  });

  it('99 MiB of newlines: read to the end in one call, no entries, nothing held', async () => {
    const page = await read(files.newlines);
    expect(page).toMatchObject({
      status: 'ok',
      problem: null,
      items: [],
      lines_read: 0,
      has_more: false,
      scanned_through_line: 99 * MiB,
    });
  });

  it('99 MiB of no-break-space lines: blank like newlines, read to the end a page at a time', async () => {
    // One call reads it all on a calm machine; a busy one answers where its time ran out.
    let page = await read(files.nbsp, { limit: 2 });
    while (page.has_more) {
      expect(page).toMatchObject({ status: 'ok', items: [], lines_read: 0 });
      const from = page.scanned_through_line;
      page = await read(files.nbsp, { limit: 2, after_line: from });
      expect(page.scanned_through_line).toBeGreaterThan(from);
    }
    expect(page).toMatchObject({
      status: 'ok',
      problem: null,
      items: [],
      lines_read: 0,
      scanned_through_line: NBSP_LINES,
    });
  });

  it('a file inflating past 100 MB: the complete lines before the limit, then the problem', async () => {
    const first = await read(files.past, { limit: 3 });
    expect(first.items.map((e) => e.line)).toEqual([1, 2, 3]);
    expect(first).toMatchObject({ status: 'ok', lines_read: 3, has_more: true });
    const end = await read(files.past, { after_line: COMPLETE_BEFORE_LIMIT - 2 });
    expect(end.items.map((e) => e.line)).toEqual([COMPLETE_BEFORE_LIMIT - 1, COMPLETE_BEFORE_LIMIT]);
    expect(end).toMatchObject({
      status: 'unreadable',
      problem: { stage: 'decompress', line: COMPLETE_BEFORE_LIMIT + 1 },
      has_more: false,
      scanned_through_line: COMPLETE_BEFORE_LIMIT,
    });
  });

  it('downloads stream: millions of lines in full, newlines as nothing, past 100 MB refused', async () => {
    const lines = await download(files.lines);
    expect(lines).toMatchObject({
      status: 200,
      lines: SHORT_LINES,
      bytes: SHORT_LINES * LINE.length,
      last: LINE,
    });
    expect(await download(files.newlines)).toMatchObject({ status: 200, lines: 0, bytes: 0 });
    const past = await download(files.past);
    expect(past).toMatchObject({
      status: 400,
      body: { details: { stage: 'decompress', line: COMPLETE_BEFORE_LIMIT + 1 } },
    });
  });

  it('a call past its time budget answers 504 with the budget, not 500', async () => {
    h.limits.callMs = 0;
    try {
      const res = await h.tool(p.projectId, 'log.file_entries', { file_id: files.lines, limit: 2 });
      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({
        error: 'backend_timeout',
        message: expect.stringContaining('one call may take'),
        details: { budget: 'time', limit_ms: 0 },
      });
    } finally {
      h.limits.callMs = DEFAULT_READ_LIMITS.callMs;
    }
  });
});
