import type { SymbolicatedFrame } from '@svc/tools-crash';
import { parseFrameAddress } from './breakpad';
import { baseName, type DebugFileRow } from './debug-files';
import { asRaw, REASONS, type StoredFrame, type SymbolsOf, unmapped } from './frame-results';

/**
 * A native iOS / Android frame: its `address` in the Breakpad file whose MODULE name is the frame's
 * `module` (last path segment); a frame without `module` uses the only Breakpad file there is.
 */
export async function mapNativeFrame(
  frame: StoredFrame,
  files: readonly DebugFileRow[],
  symbolsOf: SymbolsOf,
): Promise<SymbolicatedFrame> {
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
  };
}
