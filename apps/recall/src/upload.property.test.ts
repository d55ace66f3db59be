import { gzipSync } from 'node:zlib';
import { toWellFormed } from '@svc/tool-kit';
import { logAuditOutput, logFileEntriesOutput, logListFilesOutput } from '@svc/tools-recall';
import fc from 'fast-check';
import { encryptFileBytes } from './file-codec';
import { type RecallHarness, startRecallHarness, type TestProject } from './testing/harness';

// Hostile uploads, generated: random bytes and valid encryptions of hostile plaintexts (deep JSON,
// numbers past a double, control characters, lone surrogates, bytes that are not UTF-8, lines past
// the line limit) under hostile query parameters (bytes that are not UTF-8, encoded surrogates,
// NULs, odd numbers and days). Every upload answers 2xx or a 4xx that says what is wrong, never a
// 5xx; afterwards the three tools of the project answer 200, the file's entries included, with
// well-formed text.

let h: RecallHarness;
let p: TestProject;
let key: Buffer;
let keyVersion: number;

beforeAll(async () => {
  h = await startRecallHarness();
  p = await h.project('recall_property');
  const k = (await (await h.device(p, 'GET', '/device/v1/key')).json()) as {
    key: string;
    key_version: number;
  };
  key = Buffer.from(k.key, 'base64');
  keyVersion = k.key_version;
});
afterAll(async () => {
  await h?.close();
});

/** A JS string as WTF-8 bytes: a lone surrogate as the three bytes UTF-8 would give it (not UTF-8). */
function wtf8(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}
const percent = (bytes: Iterable<number>) =>
  [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u));
const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc
    .array(fc.oneof(loneSurrogate, fc.constantFrom('\u0000', '\u001b', '\u200b', '\u202e', '\ufeff', 'a')), {
      maxLength: 20,
    })
    .map((parts) => parts.join('')),
);
/** A query parameter's value, already percent-encoded. */
const hostileParam = fc.oneof(
  hostileString.map((s) => percent(wtf8(s))),
  fc.uint8Array({ maxLength: 120 }).map(percent),
  fc.constantFrom('', '%00', '%ED%A0%80', '%C0%80', '%FF%FE', 'a'.repeat(300), '%20%20', '+'),
);
const validParams = () => ({
  device_id: 'dev_prop',
  file_name: 'prop.log',
  date: '2026-11-20',
  key_version: String(keyVersion),
});
/** Mostly `valid`, sometimes hostile: most uploads get through to the file they carry. */
const mostly = (valid: fc.Arbitrary<string>, hostile: fc.Arbitrary<string>) =>
  fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: hostile, weight: 1 });
/** Text a device may well send, surrogates and bytes that are not UTF-8 included (no control characters). */
const oddName = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 60 })
  // biome-ignore lint/suspicious/noControlCharactersInRegex: names without control characters
  .filter((s) => !/[\u0000-\u001f\u007f]/.test(s) && s.trim() !== '')
  .map((s) => percent(wtf8(s)));
const params = fc
  .record(
    {
      device_id: mostly(fc.oneof(fc.constant('dev_prop'), oddName), hostileParam),
      file_name: mostly(fc.oneof(fc.constant('prop.log'), oddName), hostileParam),
      date: mostly(
        fc.constantFrom('2026-11-20', '0001-01-01', '9999-12-31', '2024-02-29'),
        fc.oneof(fc.constantFrom('0000-01-01', '2026-02-30', '20261120', '2026-1-1'), hostileParam),
      ),
      key_version: mostly(
        fc.constant('current'),
        fc.oneof(
          fc.constantFrom(
            '0',
            '-1',
            '1e3',
            'NaN',
            'Infinity',
            '99999999999999999999',
            '1.5',
            '0x1',
            '2147483648',
          ),
          hostileParam,
        ),
      ),
      user_id: mostly(oddName, hostileParam),
      session_id: mostly(oddName, hostileParam),
      request_id: mostly(oddName, hostileParam),
      // Not a parameter of uploads: refused whatever its value.
      project_id: hostileParam,
    },
    { requiredKeys: ['device_id', 'file_name', 'date', 'key_version'] },
  )
  .chain((record) =>
    // project_id in one upload of ten or so.
    fc
      .boolean()
      .map((keep) =>
        keep && record.device_id.length % 5 === 0 ? record : { ...record, project_id: undefined },
      ),
  );

/** One line of a plaintext file. */
const hostileLine = fc.oneof(
  fc
    .record({ ts: hostileString, level: hostileString, message: hostileString })
    .map((e) => JSON.stringify(e)),
  fc
    .record({
      ts: hostileString,
      level: hostileString,
      tag: hostileString,
      message: hostileString,
      extra: hostileString,
    })
    .map((e) => JSON.stringify(e)),
  fc
    .integer({ min: 1, max: 100_000 })
    .map((depth) => `{"ts":"t","level":"l","message":"m","d":${'['.repeat(depth)}${']'.repeat(depth)}}`),
  fc
    .integer({ min: 1, max: 20_000 })
    .map((depth) => `{"ts":"t","level":"l","message":"m","o":${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}}`),
  fc.constantFrom(
    '{"ts":"t","level":"l","message":"m","big":1e400,"neg":-1e400,"z":-0,"i":123456789012345678901234567890}',
    '{"ts":"t\\ud800","level":"\\udfff","message":"\\u0000\\u001b[31m","tag":"\\ud83d"}',
    '{"ts":"t","level":"l","message":"m","__proto__":{"x":1},"constructor":"c"}',
    '{"ts":"t","level":"l","message":"m","ts":"again"}',
    '',
    '   ',
    '\ufeff{"ts":"t","level":"l","message":"m"}',
    'not json',
    '{"ts":"t","level":"l"}',
  ),
  fc.json({ maxDepth: 4 }),
  fc
    .integer({ min: 0, max: 200_000 })
    .map((n) => JSON.stringify({ ts: 't', level: 'l', message: 'x'.repeat(n) })),
);
const body = fc.oneof(
  fc.record({ kind: fc.constant('random bytes' as const), bytes: fc.uint8Array({ maxLength: 4096 }) }),
  fc.record({
    kind: fc.constant('hostile plaintext' as const),
    lines: fc.array(fc.oneof(hostileLine, fc.uint8Array({ maxLength: 200 })), { maxLength: 20 }),
  }),
  fc.record({ kind: fc.constant('encrypted, not gzip' as const), bytes: fc.uint8Array({ maxLength: 2048 }) }),
);
type Body = typeof body extends fc.Arbitrary<infer T> ? T : never;

function bytesOf(b: Body): Buffer {
  if (b.kind === 'random bytes') return Buffer.from(b.bytes);
  if (b.kind === 'encrypted, not gzip') return encryptFileBytes(Buffer.from(b.bytes), key);
  const text = Buffer.concat(b.lines.flatMap((l) => [Buffer.from(l), Buffer.from('\n')]));
  return encryptFileBytes(gzipSync(text), key);
}

const wellFormedJson = (value: unknown) => {
  const text = JSON.stringify(value);
  return toWellFormed(text) === text;
};

describe('recall upload with hostile bodies and parameters', () => {
  it('answers 2xx or a 4xx that says what is wrong, and every tool of the project still answers 200', async () => {
    await fc.assert(
      fc.asyncProperty(params, body, async (query, file) => {
        const values = { ...validParams(), ...query };
        if (values.key_version === 'current') values.key_version = String(keyVersion);
        const qs = Object.entries(values)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `${k}=${v}`)
          .join('&');
        const res = await h.device(p, 'POST', `/device/v1/files?${qs}`, bytesOf(file));
        const answer = await res.json();
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(answer).toMatchObject({ error: expect.any(String), message: expect.any(String) });
          expect((answer.message as string).length).toBeGreaterThan(10);
        } else {
          expect(res.status).toBe(201);
          const entries = await h.tool(p.projectId, 'log.file_entries', { file_id: answer.file_id });
          expect(entries.status).toBe(200);
          logFileEntriesOutput.parse(entries.body);
          expect(wellFormedJson(entries.body)).toBe(true);
          const download = await fetch(
            `${h.url}/console/v1/projects/${p.projectId}/files/${answer.file_id}/download`,
            {
              headers: { authorization: `Bearer ${p.session}` },
            },
          );
          expect([200, 400]).toContain(download.status);
          const text = await download.text();
          expect(toWellFormed(text)).toBe(text);
        }
        const list = await h.tool(p.projectId, 'log.list_files', {});
        expect(list.status).toBe(200);
        logListFilesOutput.parse(list.body);
        expect(wellFormedJson(list.body)).toBe(true);
        const audit = await h.tool(p.projectId, 'log.audit', {});
        expect(audit.status).toBe(200);
        logAuditOutput.parse(audit.body);
      }),
      { numRuns: 150 },
    );
  });
});
