import { createHash } from 'node:crypto';
import { SourceMapConsumer } from 'source-map';
import { CRASH_ISSUES, type DemoFrame, generateDemoDebugFiles, generateDemoProject } from './index';

const NOW = Date.parse('2025-06-01T12:00:00.000Z');
const project = generateDemoProject({ seed: 42, size: 10, now: NOW, days: 14 });
const files = generateDemoDebugFiles({ seed: 42 });

interface Symbol {
  function: string;
  file: string;
  line: number;
}

/** A tiny Breakpad text reader: MODULE name, FILE records, FUNC records and their line records. */
function readBreakpad(text: string) {
  const lines = text.trim().split('\n');
  const [, , , , module] = lines[0]!.split(' ');
  const files = new Map<number, string>();
  const funcs: { address: number; size: number; name: string; lines: number[][] }[] = [];
  for (const line of lines.slice(1)) {
    const parts = line.split(' ');
    if (parts[0] === 'FILE') files.set(Number(parts[1]), parts.slice(2).join(' '));
    else if (parts[0] === 'FUNC') {
      funcs.push({
        address: Number.parseInt(parts[1]!, 16),
        size: Number.parseInt(parts[2]!, 16),
        name: parts.slice(4).join(' '),
        lines: [],
      });
    } else {
      const [address, size, lineNo, file] = parts;
      funcs[funcs.length - 1]!.lines.push([
        Number.parseInt(address!, 16),
        Number.parseInt(size!, 16),
        Number(lineNo),
        Number(file),
      ]);
    }
  }
  const lookup = (address: number): Symbol | undefined => {
    const fn = funcs.find((f) => address >= f.address && address < f.address + f.size);
    const record = fn?.lines.find(([a, s]) => address >= a! && address < a! + s!);
    if (!fn || !record) return undefined;
    return { function: fn.name, file: files.get(record[3]!)!, line: record[2]! };
  };
  return { module, funcs, lookup };
}

const issueOf = (errorType: string, message: string) =>
  CRASH_ISSUES.find((i) => i.error_type === errorType && i.message === message)!;

describe('generateDemoDebugFiles', () => {
  it('gives one web source map and a Breakpad file per native platform, deterministically', () => {
    expect(files.map((f) => [f.kind, f.platform, f.name])).toEqual([
      ['sourcemap', 'web', 'app.min.js.map'],
      ['breakpad', 'ios', 'Shop.sym'],
      ['breakpad', 'android', 'libshop.so.sym'],
    ]);
    expect(generateDemoDebugFiles({ seed: 42 })).toEqual(files);
    expect(files[1]!.content).toMatch(/^MODULE ios arm64 [0-9A-F]{33} Shop\n/);
    expect(files[2]!.content).toMatch(/^MODULE Linux arm64 [0-9A-F]{33} libshop\.so\n/);
  });

  it('has well-formed Breakpad records: sorted, non-overlapping functions, lines inside them', () => {
    for (const file of files.filter((f) => f.kind === 'breakpad')) {
      const { funcs } = readBreakpad(file.content);
      expect(funcs.length).toBeGreaterThan(3);
      funcs.forEach((fn, i) => {
        if (i > 0) expect(fn.address).toBeGreaterThanOrEqual(funcs[i - 1]!.address + funcs[i - 1]!.size);
        for (const [a, s] of fn.lines) {
          expect(a!).toBeGreaterThanOrEqual(fn.address);
          expect(a! + s!).toBeLessThanOrEqual(fn.address + fn.size);
        }
      });
    }
  });

  it('map every demo crash frame of the app to its readable original', async () => {
    const consumer = await new SourceMapConsumer(JSON.parse(files[0]!.content));
    const breakpad = files.filter((f) => f.kind === 'breakpad').map((f) => readBreakpad(f.content));
    const inBundle = (f: DemoFrame | undefined) => f?.file === 'https://shop.example/static/app.min.js';
    // Browsers report 1-based columns; the source map stores 0-based ones.
    const position = (f: DemoFrame) => consumer.originalPositionFor({ line: f.line!, column: f.column! - 1 });
    try {
      /**
       * Source maps name tokens: a web frame's file and line are at its own position, its function
       * name is the token at its caller's call site (no in-app caller: the minified name stays).
       */
      const symbolicate = (frames: DemoFrame[], i: number): Symbol | undefined => {
        const frame = frames[i]!;
        if (inBundle(frame)) {
          const own = position(frame);
          // A symbolicator passing the column unchanged lands on the same mapping.
          expect(consumer.originalPositionFor({ line: frame.line!, column: frame.column! })).toEqual(own);
          const caller = inBundle(frames[i + 1]) ? position(frames[i + 1]!).name : null;
          return own.source
            ? { function: caller ?? frame.function, file: own.source, line: own.line! }
            : undefined;
        }
        const symbols = breakpad.find((b) => b.module === frame.module);
        return frame.address && symbols ? symbols.lookup(Number.parseInt(frame.address, 16)) : undefined;
      };
      let mapped = 0;
      for (const crash of project.crashes) {
        const issue = issueOf(crash.error_type, crash.message);
        const symbolicated = crash.frames.map((frame, i) => {
          const original = issue.frames[i]!;
          const symbol = symbolicate(crash.frames, i);
          if (issue.runtime === 'jvm') {
            expect(symbol).toBeUndefined();
            expect([frame.function, frame.file, frame.line]).toEqual([
              original.function,
              original.file,
              original.line,
            ]);
            return frame;
          }
          if (!frame.in_app) {
            // Vendor bundles and system libraries come without debug files: they stay as they are.
            expect(symbol).toBeUndefined();
            return frame;
          }
          const outermostWeb = inBundle(frame) && !inBundle(crash.frames[i + 1]);
          const name = outermostWeb ? frame.function : original.function;
          expect(symbol).toEqual({ function: name, file: original.file, line: original.line });
          mapped++;
          return { ...frame, ...symbol };
        });
        // The top three in-app frames always symbolicate to their readable names, and the SDK's
        // signature is the documented rule applied to them.
        const top = symbolicated
          .filter((f) => f.in_app)
          .slice(0, 3)
          .map((f) => f.function);
        expect(top).toEqual(
          issue.frames
            .filter((f) => f.in_app)
            .slice(0, 3)
            .map((f) => f.function),
        );
        if (crash.signature) {
          const expected = createHash('sha256')
            .update([crash.error_type, ...top].join('\n'))
            .digest('hex')
            .slice(0, 16);
          expect(crash.signature).toBe(expected);
        }
      }
      expect(mapped).toBeGreaterThan(50);
      const platformsMapped = new Set(
        project.crashes.filter((c) => c.frames.some((f) => f.address || f.column)).map((c) => c.platform),
      );
      expect(platformsMapped).toEqual(new Set(['ios', 'android', 'web']));
    } finally {
      consumer.destroy();
    }
  });
});
