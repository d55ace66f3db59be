import fc from 'fast-check';
import { decodeUtf8 } from './json-body';

// A body is decoded a megabyte at a time: the text must be exactly what one toString gives,
// whatever bytes it holds and wherever a character falls across the megabyte boundaries.

describe('decodeUtf8', () => {
  it('gives what toString gives, invalid bytes and split characters included', async () => {
    const MB = 1 << 20;
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom('é', '€', '😀', '\ufeff', 'a'),
        fc.integer({ min: 0, max: 3 }),
        async (tail, char, shift) => {
          // A character straddling the first boundary, then arbitrary bytes (bad UTF-8 included).
          const head = Buffer.alloc(MB - shift, 'a');
          const body = Buffer.concat([head, Buffer.from(char.repeat(3)), Buffer.from(tail), head]);
          expect(await decodeUtf8(body)).toBe(body.toString('utf8'));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('decodes a small body at once', async () => {
    expect(await decodeUtf8(Buffer.from('\ufeff{"a":"\u00e9"}'))).toBe('\ufeff{"a":"\u00e9"}');
  });
});
