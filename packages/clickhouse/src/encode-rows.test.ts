import fc from 'fast-check';
import { compactRows } from './client';
import { encodeRowsInSlices, rowArraysInSlices } from './encode-rows';

// The sliced encoders write exactly what one JSON.stringify of compactRows wrote, and let the
// event loop turn between slices: counted, not timed (a slice of 0 ms pauses at every check).

const lines = (body: Buffer) => body.toString('utf8').split('\n').filter(Boolean);

const rowValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
);
const rows = fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'c_d', 'e1', 'f'), rowValue), {
  minLength: 1,
  maxLength: 40,
});

async function collect(values: AsyncIterable<unknown[]>): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const v of values) out.push(v);
  return out;
}

describe('encodeRowsInSlices', () => {
  it('names the same columns and writes the same values as compactRows', async () => {
    await fc.assert(
      fc.asyncProperty(rows, async (given) => {
        const expected = compactRows(given);
        const encoded = await encodeRowsInSlices(given, 0);
        expect(encoded.columns).toEqual(expected.columns);
        expect(lines(encoded.body).map((l) => JSON.parse(l))).toEqual(
          JSON.parse(JSON.stringify(expected.values)),
        );
        const streamed = await rowArraysInSlices(given, 0);
        expect(streamed.columns).toEqual(expected.columns);
        expect(await collect(streamed.values)).toEqual(expected.values);
      }),
      { numRuns: 200 },
    );
  });

  it('lets the event loop turn between slices of a big insert, and loses no row', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => ({
      id: i,
      message: `line ${i}`,
      extra: i % 2 ? 'x' : null,
    }));
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    try {
      const sliced = await encodeRowsInSlices(many, 0);
      // A slice of 0 ms pauses at every check: once per 256 rows in each of the two passes.
      expect(sliced.pauses).toBeGreaterThanOrEqual(2 * Math.floor(20_000 / 256) - 1);
      expect(turns).toBeGreaterThan(0);
      const got = lines(sliced.body);
      expect(got).toHaveLength(20_000);
      expect(got[19_999]).toBe('[19999,"line 19999","x"]');
      expect(got[0]).toBe('[0,"line 0",null]');
    } finally {
      clearInterval(ticker);
    }
  });

  it('does a small insert in one slice', async () => {
    const encoded = await encodeRowsInSlices([{ a: 1 }, { a: 2 }]);
    expect(encoded.pauses).toBe(0);
    expect(encoded.body.toString()).toBe('[1]\n[2]\n');
  });

  it('refuses column names that are not identifiers', async () => {
    await expect(encodeRowsInSlices([{ 'a; DROP': 1 }])).rejects.toThrow(/invalid ClickHouse column/);
  });
});
