import fc from 'fast-check';
import { LineSplitter } from './line-splitter';

/** What the splitter must hand out: every line trim() leaves something of, ASCII blanks before it cut. */
function expectedLines(text: string, afterLine: number) {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines
    .map((line, i) => ({ line: i + 1, text: line.replace(/^[ \t\r\v\f]+/, '') }))
    .filter((l) => l.line > afterLine && l.text.trim() !== '');
}

function split(bytes: Buffer, cuts: number[], afterLine: number) {
  const seen: { line: number; text: string }[] = [];
  const splitter = new LineSplitter(afterLine, (line, text) => {
    seen.push({ line, text });
    return 'continue';
  });
  let at = 0;
  for (const cut of [...cuts.filter((c) => c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    expect(splitter.push(bytes.subarray(at, cut))).toBeUndefined();
    at = cut;
  }
  expect(splitter.finish()).toBeUndefined();
  return { seen, lines: splitter.line };
}

const PIECES = [
  '\n',
  ' ',
  '\t',
  '\r',
  '\u00a0',
  '\ufeff',
  '\u3000',
  '\u2028',
  '\u205f',
  '\u1680',
  '\u0085',
  '\u00e0',
  '\u200b',
  '{"ts":"t","level":"I","message":"m"}',
  'x',
  '\u{1f600}',
];

describe('cutting inflated text into lines', () => {
  it('hands out exactly the lines trim() leaves something of, wherever the chunks are cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }),
        fc.array(fc.nat(400), { maxLength: 12 }),
        fc.nat(5),
        (pieces, cuts, afterLine) => {
          const text = pieces.join('');
          const { seen, lines } = split(Buffer.from(text, 'utf8'), cuts, afterLine);
          expect(seen).toEqual(expectedLines(text, afterLine));
          const count = text.split('\n').length - (text.endsWith('\n') || text === '' ? 1 : 0);
          expect(lines).toBe(count);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('decodes no blank line, blanks outside ASCII included: a file of them costs a loop over bytes', () => {
    const blanks = ['\u00a0\n', '\ufeff\n', '\u3000 \u2003\n', ' \u00a0\t\ufeff\r\n', '\n'];
    const text = Buffer.from(`${blanks.join('').repeat(20_000)}{"ts":"t","level":"I","message":"m"}\n`);
    const chunk = 16 * 1024;
    const seen: number[] = [];
    const splitter = new LineSplitter(0, (line) => {
      seen.push(line);
      return 'continue';
    });
    const decode = Buffer.prototype.toString;
    let decodes = 0;
    Buffer.prototype.toString = function (this: Buffer, ...args: Parameters<Buffer['toString']>) {
      decodes += 1;
      return decode.apply(this, args);
    };
    try {
      for (let at = 0; at < text.length; at += chunk) splitter.push(text.subarray(at, at + chunk));
      splitter.finish();
    } finally {
      Buffer.prototype.toString = decode;
    }
    expect(seen).toEqual([blanks.length * 20_000 + 1]);
    // The entry, and at most one line a chunk whose blank character the chunk's end cut in two.
    expect(decodes).toBeLessThanOrEqual(1 + Math.ceil(text.length / chunk));
  });
});
