import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '../value-bounds';
import { WorkSlices } from '../work-slices';
import { parseJsonInSlices } from './json-slices';

// The sliced parse must be JSON.parse: the same value for any JSON text, a refusal for any text
// JSON.parse refuses. Leaves of a few characters make it split nearly every container, so the
// splitting itself is what is exercised; a real body splits only containers over 128 K characters.

const noPause = () => new WorkSlices(7, async () => {});

/** JSON text of `value`, with whitespace of every kind between tokens sometimes. */
const jsonText = fc
  .tuple(fc.jsonValue({ maxDepth: 6 }), fc.constantFrom(undefined, 1, '\t', ' \r\n '))
  .map(([value, space]) => JSON.stringify(value, null, space as string | number | undefined));

async function outcome(text: string, leaf: number): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    return { ok: true, value: await parseJsonInSlices(text, noPause(), leaf) };
  } catch {
    return { ok: false };
  }
}

function native(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

describe('parseJsonInSlices', () => {
  it('gives what JSON.parse gives for any JSON text, split at any leaf size', async () => {
    await fc.assert(
      fc.asyncProperty(jsonText, fc.integer({ min: 1, max: 40 }), async (text, leaf) => {
        expect(await outcome(text, leaf)).toEqual(native(text));
      }),
      { numRuns: 400 },
    );
  });

  it('refuses what JSON.parse refuses: a character inserted, removed or changed anywhere', async () => {
    const damaged = jsonText.chain((text) =>
      fc
        .tuple(
          fc.nat({ max: Math.max(0, text.length) }),
          fc.constantFrom('delete', 'insert', 'replace'),
          fc.constantFrom(',', ':', '[', ']', '{', '}', '"', '\\', ' ', 'x', '1', '\u0000'),
        )
        .map(([at, how, c]) =>
          how === 'delete'
            ? text.slice(0, at) + text.slice(at + 1)
            : how === 'insert'
              ? text.slice(0, at) + c + text.slice(at)
              : text.slice(0, at) + c + text.slice(at + 1),
        ),
    );
    await fc.assert(
      fc.asyncProperty(damaged, fc.integer({ min: 1, max: 20 }), async (text, leaf) => {
        const expected = native(text);
        const got = await outcome(text, leaf);
        expect(got.ok).toBe(expected.ok);
        if (expected.ok && got.ok) expect(got.value).toEqual(expected.value);
      }),
      { numRuns: 600 },
    );
  });

  it('keeps "__proto__" an own key, as JSON.parse does', async () => {
    const text = '{"__proto__": {"polluted": true}, "a": [1, 2, 3]}';
    const value = (await parseJsonInSlices(text, noPause(), 2)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} before parsing, naming the path`, async () => {
    const text = `{"a":[${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}]}`;
    const slices = new WorkSlices(64 * 1024, async () => {});
    await expect(parseJsonInSlices(text, slices)).rejects.toMatchObject({
      // The object is level 1, `a` level 2: the 65th container is 63 arrays inside `a`.
      details: [
        {
          path: `a${'[0]'.repeat(MAX_JSON_DEPTH - 1)}`,
          reason: `nested more than ${MAX_JSON_DEPTH} levels deep`,
        },
      ],
    });
    // The scan stopped where the nesting went too deep: a few dozen characters of two million.
    expect(slices.total).toBeLessThan(100);
  });

  it('scans and parses a large body in slices: a pause after every slice, none larger', async () => {
    const body = JSON.stringify({
      logs: Array.from({ length: 20_000 }, (_, i) => ({ message: `m${i}`, n: i })),
    });
    const slices = new WorkSlices(64 * 1024, async () => {});
    expect(await parseJsonInSlices(body, slices)).toEqual(JSON.parse(body));
    // The scan reads every character once, and the leaves' characters count again as they are
    // parsed: all but the large array's commas and brackets and the object around it.
    const outside = 20_000 + '{"logs":[]}'.length;
    expect(slices.total).toBeGreaterThanOrEqual(2 * body.length - outside);
    expect(slices.pauses).toBeGreaterThanOrEqual(Math.floor((2 * body.length - outside) / (64 * 1024)) - 2);
    // A slice ends at the first token boundary past its size: a short string further at most.
    expect(slices.largestSlice).toBeLessThanOrEqual(64 * 1024 + 20);
  });

  it('reads a body of nested large containers once, whatever their depth (an OTLP body has six)', async () => {
    const spans = Array.from({ length: 3000 }, (_, i) => ({ spanId: `s${i}`, name: 'db.query', kind: 3 }));
    const body = JSON.stringify({
      resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'x' }, spans }] }],
    });
    const slices = new WorkSlices(64 * 1024, async () => {});
    expect(await parseJsonInSlices(body, slices, 1024)).toEqual(JSON.parse(body));
    // Once scanned, once parsed (the leaves): a scan per large level would be seven times its length.
    expect(slices.total).toBeLessThanOrEqual(2 * body.length);
  });
});
