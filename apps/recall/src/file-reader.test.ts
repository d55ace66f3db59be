import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { QueryBudgetError } from '@svc/errors';
import {
  encodeLogFile,
  encryptFileBytes,
  MAX_DECOMPRESSED_BYTES,
  MAX_LINE_BYTES,
  TAG_BYTES,
} from './file-codec';
import { INFLATE_CHUNK_BYTES, scanFile, VERIFY_CHUNK_BYTES } from './file-reader';
import { bytesInMemory } from './file-store';
import { createPacer, DEFAULT_READ_LIMITS, type ReadLimits } from './read-budget';
import { type EntriesQuery, readEntriesPage } from './tools/entries-page';

const key = randomBytes(32);
const entries = [
  { ts: '2026-11-20T10:00:00.000Z', level: 'INFO', tag: 'App', message: 'launched', build: 42 },
  { ts: '2026-11-20T10:00:01.000Z', level: 'ERROR', message: 'checkout failed', code: 'card_declined' },
  { ts: '2026-11-20T10:00:02.000Z', level: 'DEBUG', tag: null, message: 'bye' },
];

const fileOf = (text: string | Buffer) =>
  encryptFileBytes(gzipSync(typeof text === 'string' ? Buffer.from(text) : text), key);

function read(file: Buffer, query: Partial<EntriesQuery> = {}, limits: Partial<ReadLimits> = {}) {
  return readEntriesPage(
    bytesInMemory(file),
    key,
    { limit: 1000, ...query },
    { ...DEFAULT_READ_LIMITS, ...limits },
    createPacer(),
  );
}

/** A valid entry line numbered `i` (its ts), with a message. */
const lineOf = (i: number, message = `line ${i}`) => JSON.stringify({ ts: `t${i}`, level: 'INFO', message });

describe('reading a device log file', () => {
  it('reads back what an SDK writes: line numbers, tag or null, the other fields kept', async () => {
    const page = await read(encodeLogFile(entries, key));
    expect(page).toMatchObject({
      status: 'ok',
      problem: null,
      lines_read: 3,
      has_more: false,
      scanned_through_line: 3,
    });
    expect(page.items).toEqual([
      { line: 1, ts: entries[0]!.ts, level: 'INFO', tag: 'App', message: 'launched', fields: { build: 42 } },
      {
        line: 2,
        ts: entries[1]!.ts,
        level: 'ERROR',
        tag: null,
        message: 'checkout failed',
        fields: { code: 'card_declined' },
      },
      { line: 3, ts: entries[2]!.ts, level: 'DEBUG', tag: null, message: 'bye', fields: {} },
    ]);
  });

  it('says decrypt for another key, a flipped byte and a file shorter than its framing', async () => {
    const file = encodeLogFile(entries, key);
    const flipped = Buffer.from(file);
    flipped[20] = flipped[20]! ^ 1;
    for (const [bytes, k] of [
      [file, randomBytes(32)],
      [flipped, key],
      [file.subarray(0, 20), key],
    ] as const) {
      const page = await readEntriesPage(
        bytesInMemory(bytes),
        k,
        { limit: 10 },
        DEFAULT_READ_LIMITS,
        createPacer(),
      );
      expect(page).toMatchObject({
        status: 'unreadable',
        items: [],
        lines_read: 0,
        has_more: false,
        scanned_through_line: 0,
      });
      expect(page.problem).toMatchObject({ stage: 'decrypt', line: null });
    }
  });

  it('hands out no entry of a file whose tag fails, even when the page needs only its first bytes', async () => {
    const text = `${Array.from({ length: 60_000 }, (_, i) => lineOf(i, randomBytes(12).toString('hex'))).join('\n')}\n`;
    const file = fileOf(text);
    expect(file.length).toBeGreaterThan(VERIFY_CHUNK_BYTES);
    const altered = Buffer.from(file);
    const last = altered.length - TAG_BYTES - 1;
    altered[last] = altered[last]! ^ 1;
    const page = await read(altered, { limit: 1 });
    expect(page).toMatchObject({ status: 'unreadable', items: [], problem: { stage: 'decrypt' } });
    expect(page.stats.decryptedBytes).toBe(file.length - 12 - TAG_BYTES);
    expect((await read(file, { limit: 1 })).items.map((e) => e.line)).toEqual([1]);
  });

  it('says decompress for a cut gzip stream, with the complete lines before the cut', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) =>
      lineOf(i, `line ${i} ${randomBytes(8).toString('hex')}`),
    );
    const gz = gzipSync(Buffer.from(`${lines.join('\n')}\n`));
    const page = await read(encryptFileBytes(gz.subarray(0, Math.floor(gz.length / 2)), key), {
      limit: 1000,
    });
    // Page by page to the cut.
    let items = page.items;
    let last = page;
    while (last.has_more) {
      last = await read(encryptFileBytes(gz.subarray(0, Math.floor(gz.length / 2)), key), {
        limit: 1000,
        after_line: last.scanned_through_line,
      });
      items = items.concat(last.items);
    }
    expect(last.problem).toMatchObject({ stage: 'decompress' });
    expect(items.length).toBeGreaterThan(100);
    expect(items.length).toBeLessThan(2000);
    expect(last.problem!.line).toBe(items.length + 1);
    expect(last.scanned_through_line).toBe(items.length);
    expect(items.map((e) => e.message)).toEqual(
      lines.slice(0, items.length).map((l) => (JSON.parse(l) as { message: string }).message),
    );
  });

  it('says decompress for something that is not gzip at all, and for a gzip bomb', async () => {
    const notGzip = await read(encryptFileBytes(Buffer.from('plain text, no gzip'), key));
    expect(notGzip.problem).toMatchObject({ stage: 'decompress', line: 1 });
    const bomb = gzipSync(Buffer.alloc(MAX_DECOMPRESSED_BYTES + 1024, 0x20));
    const page = await read(encryptFileBytes(bomb, key));
    expect(page.problem).toMatchObject({
      stage: 'decompress',
      line: 1,
      message: expect.stringContaining('100 MB'),
    });
    expect(page.stats.inflatedBytes).toBe(MAX_DECOMPRESSED_BYTES);
  });

  it('lists the complete lines before the 100 MB limit of a file that inflates past it', async () => {
    const line = `${lineOf(0)}\n`;
    const file = fileOf(Buffer.alloc(MAX_DECOMPRESSED_BYTES + 3 * line.length, line));
    const complete = Math.floor(MAX_DECOMPRESSED_BYTES / line.length);
    const first = await read(file, { limit: 2 });
    expect(first.items.map((e) => e.line)).toEqual([1, 2]);
    expect(first).toMatchObject({ status: 'ok', has_more: true, scanned_through_line: 2 });
    const end = await read(file, { limit: 5, after_line: complete - 2 });
    expect(end.items.map((e) => e.line)).toEqual([complete - 1, complete]);
    expect(end).toMatchObject({
      status: 'unreadable',
      problem: { stage: 'decompress', line: complete + 1 },
      lines_read: 2,
      has_more: false,
      scanned_through_line: complete,
    });
  });

  it('says parse with the line where reading stopped, and keeps the entries before it', async () => {
    const text = [
      JSON.stringify(entries[0]),
      '',
      JSON.stringify(entries[1]),
      JSON.stringify({ ts: 't', level: 'INFO' }),
      JSON.stringify(entries[2]),
    ].join('\n');
    const page = await read(fileOf(text));
    expect(page.items.map((e) => e.line)).toEqual([1, 3]);
    expect(page.problem).toEqual({ stage: 'parse', line: 4, message: expect.stringContaining('Line 4') });
    expect(page).toMatchObject({ lines_read: 2, has_more: false, scanned_through_line: 3 });
    for (const bad of [
      'not json',
      '[1,2]',
      '"text"',
      JSON.stringify({ ts: 1, level: 'x', message: 'm' }),
      JSON.stringify({ ts: 't', level: 'x', message: 'm', tag: 5 }),
    ]) {
      expect((await read(fileOf(bad))).problem).toMatchObject({ stage: 'parse', line: 1 });
    }
  });

  it('passes over blank lines (spaces, CRLF, a byte-order mark) and numbers them', async () => {
    const text = `\n  \r\n${JSON.stringify(entries[0])}\r\n\ufeff\n\u00a0\n${JSON.stringify(entries[1])}`;
    const page = await read(fileOf(text));
    expect(page.items.map((e) => e.line)).toEqual([3, 6]);
    expect(page).toMatchObject({ status: 'ok', lines_read: 2, scanned_through_line: 6 });
  });

  it('reads an empty file as zero entries without a problem', async () => {
    expect(await read(encodeLogFile([], key))).toMatchObject({
      items: [],
      problem: null,
      has_more: false,
      scanned_through_line: 1,
    });
  });

  it('stops at a line longer than 128 KiB (a parse problem) and skips over one before after_line', async () => {
    const long = lineOf(2, 'x'.repeat(MAX_LINE_BYTES));
    const text = [lineOf(1), long, lineOf(3)].join('\n');
    const page = await read(fileOf(text));
    expect(page).toMatchObject({
      status: 'unreadable',
      problem: { stage: 'parse', line: 2, message: expect.stringContaining('longer than 128 KiB') },
      lines_read: 1,
      scanned_through_line: 1,
    });
    expect((await read(fileOf(text), { after_line: 2 })).items.map((e) => e.line)).toEqual([3]);
    const fits = lineOf(2, 'x'.repeat(MAX_LINE_BYTES - 100));
    expect((await read(fileOf([lineOf(1), fits].join('\n')))).items.map((e) => e.line)).toEqual([1, 2]);
  });

  it('stops once the page is full: a problem further on is not known yet, and paging reaches it', async () => {
    const text = [lineOf(1), lineOf(2), lineOf(3), '', lineOf(5), '{oops', lineOf(7)].join('\n');
    const first = await read(fileOf(text), { limit: 2 });
    expect(first).toMatchObject({
      status: 'ok',
      problem: null,
      lines_read: 2,
      has_more: true,
      scanned_through_line: 2,
    });
    const second = await read(fileOf(text), { limit: 2, after_line: 2 });
    expect(second.items.map((e) => e.line)).toEqual([3, 5]);
    expect(second).toMatchObject({
      status: 'unreadable',
      problem: { stage: 'parse', line: 6 },
      has_more: false,
    });
    expect(second.scanned_through_line).toBe(5);
    // Past the end: nothing, and the last line there is.
    expect(await read(fileOf(text), { after_line: 50 })).toMatchObject({
      items: [],
      status: 'ok',
      has_more: false,
      scanned_through_line: 7,
    });
    // A page of exactly the entries left knows the file ended.
    expect(await read(fileOf([lineOf(1), lineOf(2)].join('\n')), { limit: 2 })).toMatchObject({
      has_more: false,
      scanned_through_line: 2,
    });
  });

  it('bounds the lines a filter scans per call and says where to go on', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => lineOf(i + 1));
    lines[899] = JSON.stringify({ ts: 't', level: 'ERROR', message: 'the one' });
    const file = fileOf(lines.join('\n'));
    const limits = { parsedLines: 300 };
    let after = 0;
    const found: number[] = [];
    const calls: { scanned: number; read: number }[] = [];
    for (;;) {
      const page = await read(file, { level: 'error', after_line: after }, limits);
      calls.push({ scanned: page.scanned_through_line, read: page.lines_read });
      found.push(...page.items.map((e) => e.line));
      if (!page.has_more) break;
      after = page.scanned_through_line;
    }
    expect(found).toEqual([900]);
    expect(calls).toEqual([
      { scanned: 300, read: 300 },
      { scanned: 600, read: 300 },
      { scanned: 900, read: 300 },
      { scanned: 1000, read: 100 },
    ]);
    const tenLines = lines.slice(0, 10).reduce((sum, l) => sum + l.length, 0);
    const byBytes = await read(file, { level: 'error' }, { parsedBytes: tenLines });
    expect(byBytes).toMatchObject({ has_more: true, lines_read: 10, scanned_through_line: 10 });
  });

  it('bounds the JSON bytes of one page whatever the limit', async () => {
    const big = 'y'.repeat(8000);
    const file = fileOf(Array.from({ length: 50 }, (_, i) => lineOf(i + 1, big)).join('\n'));
    const page = await read(file, { limit: 50 }, { pageBytes: 40_000 });
    expect(page.items.length).toBe(4);
    expect(JSON.stringify(page.items).length).toBeLessThanOrEqual(40_000);
    expect(page).toMatchObject({ has_more: true, scanned_through_line: 4 });
    // One entry always fits, whatever its size.
    expect((await read(file, { limit: 50 }, { pageBytes: 10 })).items.map((e) => e.line)).toEqual([1]);
  });

  it('does work proportional to the page: a 2-entry page of millions of lines inflates a few chunks', async () => {
    const line = `${lineOf(0)}\n`;
    const file = fileOf(Buffer.alloc(line.length * 2_000_000, line));
    const page = await read(file, { limit: 2 });
    expect(page).toMatchObject({ lines_read: 2, has_more: true, scanned_through_line: 2 });
    expect(page.stats.inflatedBytes).toBeLessThanOrEqual(INFLATE_CHUNK_BYTES);
    // The tag check decrypts the whole (small) upload once, the inflating pass a chunk or two.
    expect(page.stats.decryptedBytes).toBeLessThanOrEqual(2 * file.length);
  });

  it('yields to the event loop after every chunk: bounded lines and bytes per turn', async () => {
    const line = `${lineOf(0)}\n`;
    const file = fileOf(Buffer.alloc(line.length * 100_000, line));
    let lines = 0;
    let bytes = 0;
    let most = { lines: 0, bytes: 0 };
    const pacer = createPacer({
      yieldToLoop: async () => {
        most = { lines: Math.max(most.lines, lines), bytes: Math.max(most.bytes, bytes) };
        lines = 0;
        bytes = 0;
      },
    });
    const end = await scanFile(
      bytesInMemory(file),
      key,
      (_n, _text, size) => {
        lines += 1;
        bytes += size;
        return 'continue';
      },
      { afterLine: 0, pacer },
    );
    expect(end).toMatchObject({ end: 'eof', lines: 100_000 });
    expect(most.bytes).toBeLessThanOrEqual(INFLATE_CHUNK_BYTES + line.length);
    expect(most.lines).toBeLessThanOrEqual(Math.ceil(INFLATE_CHUNK_BYTES / line.length) + 1);
  });

  it('answers the time budget error once a call has used its time before reading past after_line', async () => {
    let clock = 0;
    const pacer = createPacer({ limitMs: 1000, now: () => (clock += 600) });
    const err = await readEntriesPage(
      bytesInMemory(encodeLogFile(entries, key)),
      key,
      { limit: 10, after_line: entries.length },
      DEFAULT_READ_LIMITS,
      pacer,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryBudgetError);
    expect(err).toMatchObject({ code: 'backend_timeout', details: { budget: 'time', limit_ms: 1000 } });
  });

  it('answers the lines read when its time runs out past after_line, and the next call goes on', async () => {
    const line = `${lineOf(0)}\n`;
    const lines = 20_000;
    const file = fileOf(Buffer.alloc(line.length * lines, line));
    // Each turn of the loop takes 100 ms of a 1 s call: the time runs out after ten steps.
    const pacerOf = (turnMs = 100) => {
      let clock = 0;
      return createPacer({
        limitMs: 1000,
        startedAt: 0,
        now: () => clock,
        yieldToLoop: async () => (clock += turnMs),
      });
    };
    const filtered = { level: 'error' };
    const first = await readEntriesPage(
      bytesInMemory(file),
      key,
      { limit: 10, ...filtered },
      DEFAULT_READ_LIMITS,
      pacerOf(),
    );
    expect(first).toMatchObject({ status: 'ok', problem: null, items: [], has_more: true });
    expect(first.scanned_through_line).toBeGreaterThan(0);
    expect(first.scanned_through_line).toBeLessThan(lines);
    expect(first.lines_read).toBe(first.scanned_through_line);
    const next = await readEntriesPage(
      bytesInMemory(file),
      key,
      { limit: 10, after_line: first.scanned_through_line, ...filtered },
      DEFAULT_READ_LIMITS,
      pacerOf(10),
    );
    // A call with time to spare reads on from there to the end.
    expect(next).toMatchObject({ items: [], has_more: false, scanned_through_line: lines });
    expect(next.lines_read).toBe(lines - first.scanned_through_line);
    // Past after_line nothing was read yet when the time ran out: no page to answer, the budget error.
    const far = await readEntriesPage(
      bytesInMemory(file),
      key,
      { limit: 10, after_line: lines - 1 },
      DEFAULT_READ_LIMITS,
      pacerOf(),
    ).catch((e: unknown) => e);
    expect(far).toMatchObject({ code: 'backend_timeout', details: { budget: 'time', limit_ms: 1000 } });
  });

  it('stops reading when the caller goes away', async () => {
    const gone = new AbortController();
    gone.abort();
    await expect(
      readEntriesPage(
        bytesInMemory(encodeLogFile(entries, key)),
        key,
        { limit: 10 },
        DEFAULT_READ_LIMITS,
        createPacer({ signal: gone.signal }),
      ),
    ).rejects.toThrow('the caller went away');
  });
});
