import type { SymbolicatedFrame } from '@svc/tools-crash';
import type { DebugFileRow } from './debug-files';
import { asRaw, REASONS, type StoredFrame, type SymbolsOf, unmapped } from './frame-results';

// Java / Kotlin frames of an Android crash, as the JVM prints them: "at a.b.c.a(SourceFile:12)",
// sent as function "a.b.c.a" (class and method), file "SourceFile", line 12, no column. They are
// deobfuscated with the release's R8 / ProGuard mapping (proguard.ts). One frame can become
// several: R8 inlines calls, and the mapping lists the inlined methods of a line innermost first.

// A dotted JVM name ending in the method: `a.b.c.a`, `com.shop.Cart.<init>`, `Cart$1.lambda$run$0`.
const JVM_FRAME =
  /^[\p{L}_$][\p{L}\p{N}_$]*(?:\.[\p{L}_$][\p{L}\p{N}_$-]*)*\.(?:<c?init>|[\p{L}_$][\p{L}\p{N}_$-]*)$/u;
const SOURCE_EXTENSION = /\.(java|kt|scala|groovy)$/;

/** An Android frame is Java/Kotlin when it has no address and no column and names class.method. */
export function isJavaFrame(frame: StoredFrame): boolean {
  return (
    (frame.address == null || frame.address === '') && frame.column == null && JVM_FRAME.test(frame.function)
  );
}

export async function mapJavaFrame(
  frame: StoredFrame,
  files: readonly DebugFileRow[],
  symbolsOf: SymbolsOf,
): Promise<SymbolicatedFrame[]> {
  const dot = frame.function.lastIndexOf('.');
  const cls = frame.function.slice(0, dot);
  const method = frame.function.slice(dot + 1);
  // The release's mappings, best first (filesForCrash); the first one that knows the class maps it.
  for (const file of files.filter((f) => f.kind === 'proguard')) {
    const symbols = await symbolsOf(file);
    if (symbols.kind !== 'proguard' || !symbols.mapping.hasClass(cls)) continue;
    const extension = SOURCE_EXTENSION.exec(frame.file)?.[1] ?? 'java';
    const found = symbols.mapping.lookup(cls, method, frame.line ?? null, extension);
    if (!found) return [unmapped(frame, REASONS.noMethodLine)];
    return found.map((loc) => ({
      ...asRaw(frame),
      function: loc.function,
      file: loc.file,
      line: loc.line,
      column: null,
      symbolicated: true,
      reason: null,
    }));
  }
  return [unmapped(frame, REASONS.noProguardFile)];
}
