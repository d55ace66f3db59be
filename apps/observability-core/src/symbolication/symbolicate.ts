import type { SymbolicatedFrame } from '@svc/tools-crash';
import type { DebugFileRow } from './debug-files';
import { REASONS, type StoredFrame, type SymbolsOf, unmapped } from './frame-results';
import { isJavaFrame, mapJavaFrame } from './java-frames';
import { type JsMapping, mapJsFrame, withCallerName } from './js-frames';
import { mapNativeFrame } from './native-frames';
import type { SymbolCache, SymbolLease } from './symbol-cache';

export { REASONS, type StoredFrame } from './frame-results';

// Maps one crash's frames with the project's symbol files. Pure apart from reading the files
// through the cache: the caller picks the files and stores the result.
//
// What a frame is, by the crash's platform:
// - web: JavaScript (js-frames.ts: source maps).
// - ios / android: a frame with an `address` is native code (native-frames.ts: Breakpad files);
//   on android, one without address and column whose function is `class.method` is Java/Kotlin
//   (java-frames.ts: R8/ProGuard mappings); any other frame with a file name is JavaScript of a
//   React Native app (source maps of its bundle, Hermes bytecode offsets included); one with
//   neither cannot be mapped.
// Only files of the crash's release (app_version) or uploaded without a release are considered;
// an exact release wins over a release-less file, then the newest upload.

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

type FrameKind = 'js' | 'native' | 'java';

function kindOf(platform: string, frame: StoredFrame): FrameKind {
  if (platform === 'web') return 'js';
  if (frame.address != null && frame.address !== '') return 'native';
  if (platform === 'android' && isJavaFrame(frame)) return 'java';
  return frame.file === '' ? 'native' : 'js';
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
  const symbolsOf: SymbolsOf = async (file) => {
    let lease = leases.get(file.sha256);
    if (!lease) {
      lease = await cache.acquire(file.sha256, file.kind);
      leases.set(file.sha256, lease);
    }
    return lease.symbols;
  };
  try {
    // Native and Java frames are settled on their own (a Java frame may become several: inlined
    // calls); a JavaScript frame may take its name from its caller.
    const mapped: (JsMapping | SymbolicatedFrame)[] = [];
    for (const frame of crash.frames) {
      const kind = kindOf(platform, frame);
      if (kind === 'js') mapped.push(await mapJsFrame(frame, files, symbolsOf));
      else if (kind === 'java') mapped.push(...(await mapJavaFrame(frame, files, symbolsOf)));
      else mapped.push(await mapNativeFrame(frame, files, symbolsOf, platform));
    }
    return finish(
      mapped.map((m, i) => {
        if (!isJs(m)) return m;
        const next = mapped[i + 1];
        return withCallerName(m, next !== undefined && isJs(next) ? next : undefined);
      }),
    );
  } finally {
    for (const lease of leases.values()) lease.release();
  }
}

function isJs(m: JsMapping | SymbolicatedFrame): m is JsMapping {
  return 'named' in m;
}

function finish(frames: SymbolicatedFrame[]): SymbolicationResult {
  const inApp = frames.filter((f) => f.in_app);
  const considered = inApp.length > 0 ? inApp : frames;
  return { frames, symbolicated: considered.some((f) => f.symbolicated) };
}
