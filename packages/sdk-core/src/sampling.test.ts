import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newTraceId } from './ids';
import { checkSampleRate, fnv1a32, isSampled } from './sampling';

// The sampling vectors are shared by every SDK (Web, Go, Node). The package keeps a copy as its
// fixture; where the shared originals are checked out next to this repository
// (../shared/test-vectors), the copy must equal them byte for byte.

interface Vectors {
  fnv1a32_reference: { input: string; hash: string }[];
  vectors: { trace_id: string; hash: string; sampled: Record<string, boolean> }[];
}

const here = dirname(fileURLToPath(import.meta.url));
const FIXTURE = join(here, 'fixtures', 'sampling.json');
const vectors = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Vectors;

/** ../shared/test-vectors/sampling.json next to the repository root, if it is there. */
function sharedVectors(): string | undefined {
  let dir = here;
  for (let i = 0; i < 6; i++) {
    dir = dirname(dir);
    const candidate = resolve(dir, '..', 'shared', 'test-vectors', 'sampling.json');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
const shared = sharedVectors();

describe('head sampling', () => {
  (shared ? it : it.skip)('uses the shared vectors unchanged (../shared/test-vectors/sampling.json)', () => {
    expect(readFileSync(FIXTURE, 'utf8')).toBe(readFileSync(shared!, 'utf8'));
  });

  it('has vectors to check', () => {
    expect(vectors.fnv1a32_reference.length).toBeGreaterThan(0);
    expect(vectors.vectors.length).toBeGreaterThan(0);
  });

  it.each(vectors.fnv1a32_reference)('FNV-1a 32 of "$input" is $hash', ({ input, hash }) => {
    expect(fnv1a32(input).toString(16).padStart(8, '0')).toBe(hash);
  });

  describe.each(vectors.vectors)('trace $trace_id', ({ trace_id, hash, sampled }) => {
    it(`hashes to ${hash}`, () => {
      expect(fnv1a32(trace_id).toString(16).padStart(8, '0')).toBe(hash);
    });
    it.each(Object.entries(sampled))('at rate %s: kept %s', (rate, kept) => {
      expect(isSampled(trace_id, Number(rate))).toBe(kept);
    });
  });

  it('keeps every trace at rate 0, absent or 1, and about `rate` of random ones otherwise', () => {
    const ids = Array.from({ length: 20_000 }, newTraceId);
    for (const rate of [undefined, 0, 1]) expect(ids.every((id) => isSampled(id, rate))).toBe(true);
    const kept = ids.filter((id) => isSampled(id, 0.25)).length / ids.length;
    expect(kept).toBeGreaterThan(0.23);
    expect(kept).toBeLessThan(0.27);
  });

  it('decides on the trace id alone: the same id, the same answer, in any case', () => {
    const id = newTraceId();
    expect(isSampled(id.toUpperCase(), 0.5)).toBe(isSampled(id, 0.5));
  });

  it('refuses a rate outside [0, 1] with a clear message', () => {
    expect(checkSampleRate(undefined)).toBe(0);
    expect(checkSampleRate(0.25)).toBe(0.25);
    for (const bad of [-0.1, 1.5, Number.NaN])
      expect(() => checkSampleRate(bad)).toThrow(/sampleRate must be a number in \[0, 1\]/);
  });
});
