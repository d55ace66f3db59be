import type { SymbolicatedFrame } from '@svc/tools-crash';
import { parseFrameAddress } from './breakpad';
import { baseName, type DebugFileRow } from './debug-files';
import type { LoadedSymbols, SymbolCache, SymbolLease } from './symbol-cache';

// Maps one crash's frames with the project's symbol files. Pure apart from reading the files
// through the cache: the caller picks the files and stores the result.
//
// Which file maps a frame:
// - web: a source map whose `file` is the frame's file name (last path segment of the URL, without
//   query), or one uploaded as "<that name>.map".
// - ios / android: the Breakpad file whose MODULE name is the frame's `module` (last path
//   segment); a frame without `module` uses the only Breakpad file there is, if there is one.
// Only files of the crash's release (app_version) or uploaded without a release are considered;
// an exact release wins over a release-less file, then the newest upload.
//
// Reasons are fixed texts (never frame content): a frame's fields are attacker-controlled.

/** A frame as stored in crashes.frames (the ingest schema; optional fields may be absent). */
export interface StoredFrame {
  function: string;
  file: string;
  line?: number | null;
  column?: number | null;
  in_app?: boolean | null;
  address?: string | null;
  module?: string | null;
}

export interface CrashForSymbolication {
  platform: string;
  app_version: string;
  frames: readonly StoredFrame[];
}

export interface SymbolicationResult {
  frames: SymbolicatedFrame[];
  /**
   * True when at least one in-app frame mapped; for a crash without in-app frames, when any frame
   * mapped (the same frames the signature is taken from).
   */
  symbolicated: boolean;
}

export const REASONS = {
  platform: 'platform has no symbolication (only ios, android and web)',
  noFiles: 'no source map or Breakpad symbol file uploaded for this platform and release',
  onlyRaw:
    'only raw dSYM or .so files are uploaded for this platform; upload a Breakpad symbol file (dump_syms)',
  noFileName: 'frame has no file name',
  noMapForFile: "no source map matches the frame's file",
  noPosition: 'frame has no line and column',
  noMapping: 'source map has no mapping at this position',
  noAddress: 'frame has no address',
  badAddress: 'frame address is not a hex number',
  ambiguousModule: 'frame names no module and several Breakpad files could match',
  noModuleFile: "no Breakpad symbol file for the frame's module",
  notInFunction: 'address is not inside any function of the symbol file',
} as const;

const SUPPORTED = new Set(['ios', 'android', 'web']);

export function normalizePlatform(platform: string): string {
  return platform.trim().toLowerCase();
}

/** The usable files that apply to a crash, best first. `files` must be newest first. */
export function filesForCrash(files: readonly DebugFileRow[], crash: CrashForSymbolication): DebugFileRow[] {
  const platform = normalizePlatform(crash.platform);
  const applicable = files.filter(
    (f) => f.platform === platform && (f.release === '' || f.release === crash.app_version),
  );
  const exact = applicable.filter((f) => f.release !== '');
  return [...exact, ...applicable.filter((f) => f.release === '')];
}

function unmapped(frame: StoredFrame, reason: string): SymbolicatedFrame {
  return { ...asRaw(frame), symbolicated: false, reason };
}

function asRaw(frame: StoredFrame) {
  return {
    function: frame.function,
    file: frame.file,
    line: frame.line ?? null,
    column: frame.column ?? null,
    in_app: frame.in_app === true,
    address: frame.address ?? null,
    module: frame.module ?? null,
  };
}

/**
 * @param files usable files of the crash's platform and release, best first (filesForCrash)
 * @param hasRawFiles whether raw dSYM / .so files exist for the platform (explains the reason)
 */
export async function symbolicateFrames(
  crash: CrashForSymbolication,
  files: readonly DebugFileRow[],
  hasRawFiles: boolean,
  cache: SymbolCache,
): Promise<SymbolicationResult> {
  const platform = normalizePlatform(crash.platform);
  if (!SUPPORTED.has(platform)) return finish(crash.frames.map((f) => unmapped(f, REASONS.platform)));
  if (files.length === 0) {
    const reason = hasRawFiles && platform !== 'web' ? REASONS.onlyRaw : REASONS.noFiles;
    return finish(crash.frames.map((f) => unmapped(f, reason)));
  }

  const leases = new Map<string, SymbolLease>();
  const symbolsOf = async (file: DebugFileRow): Promise<LoadedSymbols> => {
    let lease = leases.get(file.sha256);
    if (!lease) {
      lease = await cache.acquire(file.sha256, file.kind);
      leases.set(file.sha256, lease);
    }
    return lease.symbols;
  };
  try {
    if (platform !== 'web') {
      const out: SymbolicatedFrame[] = [];
      for (const frame of crash.frames) out.push(await mapNativeFrame(frame, files, symbolsOf));
      return finish(out);
    }
    const mapped: WebMapping[] = [];
    for (const frame of crash.frames) mapped.push(await mapWebFrame(frame, files, symbolsOf));
    return finish(mapped.map((m, i) => withCallerName(m, mapped[i + 1])));
  } finally {
    for (const lease of leases.values()) lease.release();
  }
}

type SymbolsOf = (file: DebugFileRow) => Promise<LoadedSymbols>;

interface WebMapping {
  frame: SymbolicatedFrame;
  /** The original identifier at the frame's position, when the map names one. */
  name: string | null;
}

async function mapWebFrame(
  frame: StoredFrame,
  files: readonly DebugFileRow[],
  symbolsOf: SymbolsOf,
): Promise<WebMapping> {
  const fail = (reason: string) => ({ frame: unmapped(frame, reason), name: null });
  const name = baseName(frame.file);
  if (name === '') return fail(REASONS.noFileName);
  const file = files.find(
    (f) => f.kind === 'sourcemap' && (f.module === name || baseName(f.name) === `${name}.map`),
  );
  if (!file) return fail(REASONS.noMapForFile);
  if (frame.line == null || frame.column == null) return fail(REASONS.noPosition);
  const symbols = await symbolsOf(file);
  if (symbols.kind === 'unreadable') return fail(symbols.reason);
  if (symbols.kind !== 'sourcemap') return fail(REASONS.noMapForFile);
  const loc = symbols.map.lookup(frame.line, frame.column);
  if (!loc) return fail(REASONS.noMapping);
  return {
    frame: {
      ...asRaw(frame),
      file: loc.file,
      line: loc.line,
      column: loc.column,
      symbolicated: true,
      reason: null,
    },
    name: loc.function,
  };
}

/**
 * A web frame's original function name. A source map names tokens, not the function a position is
 * in: the name at a frame's own position is whatever identifier is there (`Error`, a callee). The
 * name of the function frame i runs in is at the call site that entered it, which is frame i + 1's
 * position (its caller), so that is where it is read. The outermost frame, or one whose caller did
 * not map to a named token, keeps its name as sent.
 */
function withCallerName(own: WebMapping, caller: WebMapping | undefined): SymbolicatedFrame {
  if (!own.frame.symbolicated || !caller?.frame.symbolicated || !caller.name) return own.frame;
  return { ...own.frame, function: caller.name };
}

async function mapNativeFrame(frame: StoredFrame, files: readonly DebugFileRow[], symbolsOf: SymbolsOf) {
  if (frame.address == null || frame.address === '') return unmapped(frame, REASONS.noAddress);
  const address = parseFrameAddress(frame.address);
  if (address === null) return unmapped(frame, REASONS.badAddress);
  const breakpad = files.filter((f) => f.kind === 'breakpad');
  let file: DebugFileRow | undefined;
  if (frame.module) {
    const module = baseName(frame.module);
    file = breakpad.find((f) => f.module === module);
    if (!file) return unmapped(frame, REASONS.noModuleFile);
  } else {
    const modules = new Set(breakpad.map((f) => f.module));
    if (modules.size > 1) return unmapped(frame, REASONS.ambiguousModule);
    file = breakpad[0];
    if (!file) return unmapped(frame, REASONS.noModuleFile);
  }
  const symbols = await symbolsOf(file);
  if (symbols.kind === 'unreadable') return unmapped(frame, symbols.reason);
  if (symbols.kind !== 'breakpad') return unmapped(frame, REASONS.noModuleFile);
  const loc = symbols.symbols.lookup(address);
  if (!loc) return unmapped(frame, REASONS.notInFunction);
  return {
    ...asRaw(frame),
    function: loc.function,
    file: loc.file ?? frame.file,
    line: loc.line,
    column: null,
    symbolicated: true,
    reason: null,
  } satisfies SymbolicatedFrame;
}

function finish(frames: SymbolicatedFrame[]): SymbolicationResult {
  const inApp = frames.filter((f) => f.in_app);
  const considered = inApp.length > 0 ? inApp : frames;
  return { frames, symbolicated: considered.some((f) => f.symbolicated) };
}
