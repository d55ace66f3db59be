import type { SymbolicatedFrame } from '@svc/tools-crash';
import { parseFrameAddress } from './breakpad';
import { baseName, type DebugFileRow } from './debug-files';
import { fileHasDebugId } from './debug-ids';
import { asRaw, REASONS, type StoredFrame, type SymbolsOf, unmapped } from './frame-results';

/**
 * A native iOS / Android frame: its `address` in the symbol file of the build it ran in. A frame
 * with a `debug_id` (the module's UUID / build id / Breakpad id) is looked up only in files of that
 * id, whatever their name: never in another build's or architecture's file of the same name. A
 * frame without one is matched by `module` (last path segment): the Breakpad file whose MODULE
 * name it is (function, file and line), else a dSYM (Mach-O) or .so (ELF) uploaded under that name
 * (function only, from its symbol table); without `module` either, the only module there is.
 * Files come best first (release, then newest); Breakpad files before binaries (they have lines).
 */
export async function mapNativeFrame(
  frame: StoredFrame,
  files: readonly DebugFileRow[],
  symbolsOf: SymbolsOf,
  platform: string,
): Promise<SymbolicatedFrame> {
  if (frame.address == null || frame.address === '') return unmapped(frame, REASONS.noAddress);
  const address = parseFrameAddress(frame.address);
  if (address === null) return unmapped(frame, REASONS.badAddress);
  // Breakpad files first: they have lines.
  const native = [
    ...files.filter((f) => f.kind === 'breakpad'),
    ...files.filter((f) => f.kind === 'dsym' || f.kind === 'so'),
  ];
  let file: DebugFileRow | undefined;
  if (frame.debug_id) {
    const debugId = frame.debug_id;
    file = native.find((f) => fileHasDebugId(f, debugId, platform));
    if (!file) return unmapped(frame, REASONS.noDebugIdFile);
  } else if (frame.module) {
    const module = baseName(frame.module);
    file = native.find((f) => f.module === module);
    if (!file) return unmapped(frame, REASONS.noModuleFile);
  } else {
    const modules = new Set(native.map((f) => f.module));
    if (modules.size > 1) return unmapped(frame, REASONS.ambiguousModule);
    file = native[0];
    if (!file) return unmapped(frame, REASONS.noModuleFile);
  }
  const symbols = await symbolsOf(file);
  if (symbols.kind === 'unreadable') return unmapped(frame, symbols.reason);
  if (symbols.kind === 'binary') {
    const found = symbols.symbols.lookup(address);
    if (!found) return unmapped(frame, REASONS.noBinaryFunction);
    return { ...asRaw(frame), function: found.function, column: null, symbolicated: true, reason: null };
  }
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
