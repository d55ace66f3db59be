import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { decodeLogFile, encodeLogFile, encryptFileBytes, MAX_DECOMPRESSED_BYTES } from './file-codec';

const key = randomBytes(32);
const entries = [
  { ts: '2026-11-20T10:00:00.000Z', level: 'INFO', tag: 'App', message: 'launched', build: 42 },
  { ts: '2026-11-20T10:00:01.000Z', level: 'ERROR', message: 'checkout failed', code: 'card_declined' },
  { ts: '2026-11-20T10:00:02.000Z', level: 'DEBUG', tag: null, message: 'bye' },
];

describe('device log file codec', () => {
  it('reads back what an SDK writes: line numbers, tag or null, the other fields kept', () => {
    expect(decodeLogFile(encodeLogFile(entries, key), key)).toEqual({
      problem: null,
      entries: [
        {
          line: 1,
          ts: entries[0]!.ts,
          level: 'INFO',
          tag: 'App',
          message: 'launched',
          fields: { build: 42 },
        },
        {
          line: 2,
          ts: entries[1]!.ts,
          level: 'ERROR',
          tag: null,
          message: 'checkout failed',
          fields: { code: 'card_declined' },
        },
        { line: 3, ts: entries[2]!.ts, level: 'DEBUG', tag: null, message: 'bye', fields: {} },
      ],
    });
  });

  it('says decrypt for another key, a flipped byte and a file shorter than its framing', () => {
    const file = encodeLogFile(entries, key);
    const flipped = Buffer.from(file);
    flipped[20] = flipped[20]! ^ 1;
    for (const [bytes, k] of [
      [file, randomBytes(32)],
      [flipped, key],
      [file.subarray(0, 20), key],
    ] as const) {
      const decoded = decodeLogFile(bytes, k);
      expect(decoded.entries).toEqual([]);
      expect(decoded.problem).toMatchObject({ stage: 'decrypt', line: null });
    }
  });

  it('says decompress for a cut gzip stream, with the complete lines before the cut', () => {
    const lines = Array.from({ length: 2000 }, (_, i) =>
      JSON.stringify({ ts: `t${i}`, level: 'INFO', message: `line ${i} ${randomBytes(8).toString('hex')}` }),
    );
    const gz = gzipSync(Buffer.from(`${lines.join('\n')}\n`));
    const decoded = decodeLogFile(encryptFileBytes(gz.subarray(0, Math.floor(gz.length / 2)), key), key);
    expect(decoded.problem).toMatchObject({ stage: 'decompress' });
    expect(decoded.entries.length).toBeGreaterThan(100);
    expect(decoded.entries.length).toBeLessThan(2000);
    expect(decoded.problem!.line).toBe(decoded.entries.length + 1);
    expect(decoded.entries.map((e) => e.message)).toEqual(
      lines.slice(0, decoded.entries.length).map((l) => (JSON.parse(l) as { message: string }).message),
    );
  });

  it('says decompress for something that is not gzip at all, and for a gzip bomb', () => {
    expect(
      decodeLogFile(encryptFileBytes(Buffer.from('plain text, no gzip'), key), key).problem,
    ).toMatchObject({
      stage: 'decompress',
      line: 1,
    });
    const bomb = gzipSync(Buffer.alloc(MAX_DECOMPRESSED_BYTES + 1024, 0x20));
    expect(decodeLogFile(encryptFileBytes(bomb, key), key).problem).toMatchObject({
      stage: 'decompress',
      message: expect.stringContaining('100 MB'),
    });
  });

  it('says parse with the line where reading stopped, and keeps the entries before it', () => {
    const text = [
      JSON.stringify(entries[0]),
      '',
      JSON.stringify(entries[1]),
      JSON.stringify({ ts: 't', level: 'INFO' }),
      JSON.stringify(entries[2]),
    ].join('\n');
    const decoded = decodeLogFile(encryptFileBytes(gzipSync(Buffer.from(text)), key), key);
    expect(decoded.entries.map((e) => e.line)).toEqual([1, 3]);
    expect(decoded.problem).toEqual({ stage: 'parse', line: 4, message: expect.stringContaining('Line 4') });
    for (const bad of [
      'not json',
      '[1,2]',
      '"text"',
      JSON.stringify({ ts: 1, level: 'x', message: 'm' }),
      JSON.stringify({ ts: 't', level: 'x', message: 'm', tag: 5 }),
    ]) {
      const d = decodeLogFile(encryptFileBytes(gzipSync(Buffer.from(bad)), key), key);
      expect(d.problem).toMatchObject({ stage: 'parse', line: 1 });
    }
  });

  it('reads an empty file as zero entries without a problem', () => {
    expect(decodeLogFile(encodeLogFile([], key), key)).toEqual({ entries: [], problem: null });
  });
});
