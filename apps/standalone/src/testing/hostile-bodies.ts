import fc from 'fast-check';

// Property-based hostile bodies for every ingest route: a valid body with one value replaced by
// something extreme (numbers past every column type, NaN-like strings, lone surrogates and invalid
// UTF-8, control characters, all-zero ids, deep and huge structures, the wrong type), written as raw
// JSON text so that what JSON.stringify cannot say (1e999, 30-digit integers, invalid UTF-8 bytes)
// reaches the server too.

/** A JSON value as the bytes that go on the wire. */
export type RawJson = Buffer;

const raw = (text: string): RawJson => Buffer.from(text, 'utf8');
const str = (s: string): RawJson => raw(JSON.stringify(s));

const NUMBERS = [
  '1e308',
  '-1e308',
  '1e999',
  '-1e999',
  '-0',
  '0',
  '-1',
  '4.9e-324',
  '9007199254740993',
  '18446744073709551616',
  '-9223372036854775809',
  '123456789012345678901234567890',
  '2147483648',
  '-2147483649',
  '4294967296',
  '0.5',
];

const STRINGS = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
  '-0',
  'null',
  'x\ud800',
  '\udc00x',
  '\ud83d',
  '\u0000',
  '\u001b[31mred\u001b[0m',
  '\u202eevil',
  'zero\u200bwidth',
  '0'.repeat(32),
  '0'.repeat(16),
  'ZZZZ',
  '<script>alert(1)</script>',
  '2026-13-45T99:99:99Z',
  '9999-12-31T23:59:59Z',
  '1970-01-01T00:00:00Z',
  'a'.repeat(70_000),
];

/** Bytes that are not UTF-8 inside a JSON string: a stray byte, an overlong form, an encoded surrogate. */
const INVALID_UTF8: RawJson[] = [
  Buffer.from([0x22, 0x61, 0xff, 0xfe, 0x22]),
  Buffer.from([0x22, 0xc0, 0xaf, 0x22]),
  Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]),
  Buffer.from([0x22, 0xc3, 0x22]),
];

const deepArrays = (n: number) => raw(`${'['.repeat(n)}${']'.repeat(n)}`);
const deepObjects = (n: number) => raw(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);

const STRUCTURES: RawJson[] = [
  raw('null'),
  raw('true'),
  raw('[]'),
  raw('{}'),
  raw('[1,"2",{"3":[4]}]'),
  raw('{"__proto__":{"polluted":1}}'),
  raw('{"constructor":{"prototype":{"polluted":1}}}'),
  deepArrays(3000),
  deepObjects(3000),
  deepObjects(40),
  raw(JSON.stringify(Array.from({ length: 20_000 }, (_, i) => i))),
  raw(JSON.stringify(Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, i])))),
];

/** One hostile JSON value: a fixed catalogue of known troublemakers, or generated ones. */
export const hostileValue: fc.Arbitrary<RawJson> = fc.oneof(
  fc.constantFrom(...NUMBERS).map(raw),
  fc.constantFrom(...STRINGS).map(str),
  fc.constantFrom(...INVALID_UTF8),
  fc.constantFrom(...STRUCTURES),
  // UTF-16 code units, lone surrogates included.
  fc
    .string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40 })
    .map(str),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => raw(JSON.stringify(d))),
  fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }).map((b) => raw(b.toString())),
  fc.integer({ min: 1, max: 5000 }).map(deepArrays),
);

export type Path = (string | number)[];

/** A path to a value inside `value` (every nested position, the root excluded), or a new key. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push([...prefix, i], ...pathsOf(v, [...prefix, i]));
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...pathsOf(v, [...prefix, k]));
    out.push([...prefix, 'zz_unknown_field']);
  }
  return out;
}

const PLACEHOLDER = '\u0001HOSTILE\u0001';

/** `template` as JSON bytes with the value at `path` replaced by `value` (added if absent). */
export function withValueAt(template: unknown, path: Path, value: RawJson): Buffer {
  // A JSON copy: a template that shares an object between two places gets two of it.
  const copy = JSON.parse(JSON.stringify(template)) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[path.at(-1)!] = PLACEHOLDER;
  const parts = JSON.stringify(copy).split(JSON.stringify(PLACEHOLDER));
  if (parts.length !== 2) throw new Error(`the placeholder at ${path.join('.')} is not one place`);
  const [before, after] = parts as [string, string];
  return Buffer.concat([Buffer.from(before, 'utf8'), value, Buffer.from(after, 'utf8')]);
}

/** A value as a person reads it in a failure: text, cut, with its length. */
export const shown = (value: Buffer) =>
  value.length > 120
    ? `${value.toString('utf8', 0, 120)}... (${value.length} bytes)`
    : value.toString('utf8');

export interface Mutation {
  body: Buffer;
  path: Path;
}

/** Bodies that are `template` with one value (at any depth) made hostile. */
export function mutationsOf(template: unknown): fc.Arbitrary<Mutation> {
  const paths = pathsOf(template);
  return fc.tuple(fc.constantFrom(...paths), hostileValue).map(([path, value]) => ({
    body: withValueAt(template, path, value),
    path,
    // A counterexample reads as what was changed, not as a byte array.
    [fc.toStringMethod]: () => `${path.join('.')} = ${shown(value)}`,
  }));
}

/** The field a 400 must name for a mutation at `path`: its last key (its array's key for an index). */
export function fieldNamed(path: Path): string {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === 'string') return path[i] as string;
  return '';
}

/** Bytes changed, cut or added at random: for binary bodies (protobuf, encrypted files). */
export function corruptedBytes(valid: Buffer): fc.Arbitrary<Buffer> {
  return fc.oneof(
    fc.integer({ min: 0, max: Math.max(0, valid.length - 1) }).map((n) => valid.subarray(0, n)),
    fc
      .array(fc.tuple(fc.nat({ max: Math.max(0, valid.length - 1) }), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 8,
      })
      .map((flips) => {
        const copy = Buffer.from(valid);
        for (const [at, byte] of flips) copy[at] = byte;
        return copy;
      }),
    fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.concat([valid, Buffer.from(bytes)])),
    fc.uint8Array({ maxLength: 65_536 }).map((bytes) => Buffer.from(bytes)),
  );
}
