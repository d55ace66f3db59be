import { CRASH_ISSUES, type CrashIssue, type SourceFrame } from './crash-issues';
import type { DemoFrame, Platform } from './records';

// Where the demo's functions live in the shipped artifacts: offsets inside the native binaries
// and positions inside the minified web bundle. One layout, computed from the issue catalog
// alone, feeds both the raw crash frames and the debug files, so the two always agree.

export const APP_BUNDLE_URL = 'https://shop.example/static/app.min.js';
export const VENDOR_BUNDLE_URL = 'https://shop.example/static/vendor.min.js';
/** The app's own native binary per platform (the module a Breakpad file describes). */
export const NATIVE_MODULES = { ios: 'Shop', android: 'libshop.so' } as const;

const FUNC_BASE = 0x1_8000;
const FUNC_STRIDE = 0x400;
const FUNC_SIZE = 0x300;
/** Bytes before the first statement (the prologue maps to the declaration line). */
const PROLOGUE = 0x20;
const LINE_SIZE = 0x40;
/** The crashing instruction sits inside its line's range, not at its start. */
const INSTRUCTION_OFFSET = 0x14;

export interface NativeLine {
  address: number;
  size: number;
  line: number;
}

export interface NativeFunction {
  name: string;
  file: string;
  address: number;
  size: number;
  lines: NativeLine[];
}

/** One call position in the minified bundle and what it came from. */
export interface BundlePosition {
  minifiedName: string;
  /** 0-based, as the source map stores it; frames report it 1-based. */
  generatedColumn: number;
  /**
   * The original identifier at this call site: the function called from here (the next frame
   * up the stack). Source maps name tokens, so a frame's own function name is found at its
   * caller's position; the innermost position names nothing.
   */
  original: { source: string; line: number; column: number; callee: string | null };
  /** The function this position is inside (what the frame runs in). */
  enclosing: string;
}

export interface Layout {
  native: Record<'ios' | 'android', NativeFunction[]>;
  bundle: BundlePosition[];
  /** Raw frames per issue key, in the order the SDK sends them. */
  rawFrames: Map<string, DemoFrame[]>;
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** Short identifiers in the order a minifier hands them out. */
function minifiedName(index: number): string {
  const letters = 'tnreoiasuclfdphmgvybwkxjqz';
  if (index < letters.length) return letters[index]!;
  return letters[Math.floor(index / letters.length) - 1]!.toUpperCase() + letters[index % letters.length]!;
}

function buildLayout(issues: readonly CrashIssue[]): Layout {
  const functions = new Map<string, NativeFunction>();
  const native: Layout['native'] = { ios: [], android: [] };
  const nativeAddress = (platform: 'ios' | 'android', frame: SourceFrame): number => {
    const key = `${platform}\n${frame.function}\n${frame.file}`;
    let fn = functions.get(key);
    if (!fn) {
      const address = FUNC_BASE + native[platform].length * FUNC_STRIDE;
      fn = { name: frame.function, file: frame.file, address, size: FUNC_SIZE, lines: [] };
      functions.set(key, fn);
      native[platform].push(fn);
    }
    const line = frame.line ?? 0;
    let record = fn.lines.find((l) => l.line === line);
    if (!record) {
      record = { address: fn.address + PROLOGUE + fn.lines.length * LINE_SIZE, size: LINE_SIZE, line };
      fn.lines.push(record);
    }
    return record.address + INSTRUCTION_OFFSET;
  };

  // System libraries get plausible addresses too; nobody uploads symbols for them.
  const systemAddresses = new Map<string, number>();
  const systemAddress = (frame: SourceFrame): number => {
    const key = `${frame.module}\n${frame.function}`;
    if (!systemAddresses.has(key)) systemAddresses.set(key, 0x2_4000 + systemAddresses.size * 0x1a8 + 0x3c);
    return systemAddresses.get(key)!;
  };

  const bundle: BundlePosition[] = [];
  const names = new Map<string, string>();
  const bundlePosition = (frame: SourceFrame, callee: string | null): BundlePosition => {
    const line = frame.line ?? 1;
    const found = bundle.find(
      (p) => p.original.source === frame.file && p.original.line === line && p.enclosing === frame.function,
    );
    if (found) {
      // One position, one token: the catalog must not call two functions from the same line.
      if (found.original.callee !== callee) throw new Error(`${frame.file}:${line} calls two functions`);
      return found;
    }
    if (!names.has(frame.function)) names.set(frame.function, minifiedName(names.size));
    const position: BundlePosition = {
      minifiedName: names.get(frame.function)!,
      generatedColumn: 1187 + bundle.length * 2311,
      original: { source: frame.file, line, column: 2 + ((line * 7) % 24), callee },
      enclosing: frame.function,
    };
    bundle.push(position);
    return position;
  };
  let vendorColumn = 40_211;

  const rawFrames = new Map<string, DemoFrame[]>();
  for (const issue of issues) {
    rawFrames.set(
      issue.key,
      issue.frames.map((frame, index): DemoFrame => {
        if (issue.runtime === 'jvm') {
          const raw: DemoFrame = { function: frame.function, file: frame.file, in_app: frame.in_app };
          if (frame.line !== undefined) raw.line = frame.line;
          return raw;
        }
        if (issue.runtime === 'native') {
          const platform = issue.platform as 'ios' | 'android';
          if (!frame.in_app) {
            const module = frame.module ?? 'unknown';
            return {
              function: frame.function,
              file: '',
              in_app: false,
              address: hex(systemAddress(frame)),
              module,
            };
          }
          const module = NATIVE_MODULES[platform];
          const address = hex(nativeAddress(platform, frame));
          return { function: `${module}+${address}`, file: '', in_app: true, address, module };
        }
        if (!frame.in_app) {
          vendorColumn += 977;
          return { function: 'Ja', file: VENDOR_BUNDLE_URL, line: 2, column: vendorColumn, in_app: false };
        }
        const position = bundlePosition(frame, index > 0 ? issue.frames[index - 1]!.function : null);
        return {
          function: position.minifiedName,
          file: APP_BUNDLE_URL,
          line: 1,
          column: position.generatedColumn + 1,
          in_app: true,
        };
      }),
    );
  }
  return { native, bundle, rawFrames };
}

export const LAYOUT: Layout = buildLayout(CRASH_ISSUES);

/** A fresh copy of the frames the SDK sends for this issue. */
export function rawFramesOf(issue: CrashIssue): DemoFrame[] {
  return LAYOUT.rawFrames.get(issue.key)!.map((f) => ({ ...f }));
}

export function isNativePlatform(platform: Platform): platform is 'ios' | 'android' {
  return platform === 'ios' || platform === 'android';
}
