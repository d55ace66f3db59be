import type { SymbolicatedFrame } from '@svc/tools-crash';
import type { DebugFileRow } from './debug-files';
import type { LoadedSymbols } from './symbol-cache';

// What every kind of frame shares: the stored frame, the fixed reasons, the raw result.
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
  /** The module's Mach-O UUID, ELF build id or Breakpad id, as the device printed it. */
  debug_id?: string | null;
}

export const REASONS = {
  platform: 'platform has no symbolication (only ios, android and web)',
  noFiles: 'no source map, Breakpad symbol file or ProGuard mapping uploaded for this platform and release',
  onlyRaw:
    'only dSYM or .so files that are no Mach-O or ELF binary (a zip) are uploaded for this platform; upload the binary itself or a Breakpad symbol file (dump_syms)',
  noFileName: 'frame has no file name',
  noMapForFile: "no source map matches the frame's file",
  noPosition: 'frame has no line and column',
  noMapping: 'source map has no mapping at this position',
  noAddress: 'frame has no address',
  badAddress: 'frame address is not a hex number',
  ambiguousModule: 'frame names no module and several symbol files could match',
  noModuleFile: "no Breakpad symbol file, dSYM or .so for the frame's module",
  noDebugIdFile:
    "no Breakpad symbol file, dSYM or .so uploaded for this platform and release has the frame's build id (debug_id)",
  notInFunction: 'address is not inside any function of the symbol file',
  noBinaryFunction: "address is not inside any function of the binary's symbol table",
  noProguardFile: 'no ProGuard mapping uploaded for this release has the class',
  noMethodLine: 'the ProGuard mapping has no method of this name at this line',
} as const;

/** Reads a file through the crash's leases of the symbol cache. */
export type SymbolsOf = (file: DebugFileRow) => Promise<LoadedSymbols>;

export function asRaw(frame: StoredFrame) {
  return {
    function: frame.function,
    file: frame.file,
    line: frame.line ?? null,
    column: frame.column ?? null,
    in_app: frame.in_app === true,
    address: frame.address ?? null,
    module: frame.module ?? null,
    debug_id: frame.debug_id ?? null,
  };
}

export function unmapped(frame: StoredFrame, reason: string): SymbolicatedFrame {
  return { ...asRaw(frame), symbolicated: false, reason };
}
