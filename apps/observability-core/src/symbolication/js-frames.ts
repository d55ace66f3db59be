import type { SymbolicatedFrame } from '@svc/tools-crash';
import { baseName, type DebugFileRow } from './debug-files';
import { asRaw, REASONS, type StoredFrame, type SymbolsOf, unmapped } from './frame-results';

// JavaScript frames: a web page's, and a React Native app's (iOS and Android), through source maps.
//
// Which map: the one whose `file` is the frame's file name (last path segment, without query), or
// one uploaded as "<that name>.map". A React Native bundle is matched the same way by its file
// name (`index.android.bundle`, `main.jsbundle`, whatever path the device loaded it from).
//
// Which position:
// - Hermes bytecode (a release React Native build): "address at index.android.bundle:1:9427" is
//   line 1 and the bytecode offset, looked up as the 0-based column of the map (hermesc's own map,
//   or Metro's composed with it). A frame is bytecode when it still says "address at", or when its
//   map is a Hermes bytecode map and the frame is on line 1 (React Native and the SDK drop the
//   "address at"; a bytecode bundle has no other kind of position).
// - Everything else (browsers, V8, JavaScriptCore): 1-based line and column, as browsers report.

export interface JsMapping {
  frame: SymbolicatedFrame;
  /** The original identifier at the frame's position, when the map names one. */
  name: string | null;
  /** True when the map named the function itself (Metro's function maps): no caller needed. */
  named: boolean;
}

const HERMES_ADDRESS = /^address at /;

/** The name a frame's file is matched on: last path segment, no query, no Hermes prefix. */
export function bundleFileName(file: string): string {
  return baseName(file.replace(HERMES_ADDRESS, ''));
}

export async function mapJsFrame(
  frame: StoredFrame,
  files: readonly DebugFileRow[],
  symbolsOf: SymbolsOf,
): Promise<JsMapping> {
  const fail = (reason: string): JsMapping => ({ frame: unmapped(frame, reason), name: null, named: false });
  const name = bundleFileName(frame.file);
  if (name === '') return fail(REASONS.noFileName);
  const file = files.find(
    (f) => f.kind === 'sourcemap' && (f.module === name || baseName(f.name) === `${name}.map`),
  );
  if (!file) return fail(REASONS.noMapForFile);
  if (frame.line == null || frame.column == null) return fail(REASONS.noPosition);
  const symbols = await symbolsOf(file);
  if (symbols.kind === 'unreadable') return fail(symbols.reason);
  if (symbols.kind !== 'sourcemap') return fail(REASONS.noMapForFile);
  const bytecode = HERMES_ADDRESS.test(frame.file) || (symbols.map.hermesBytecode && frame.line === 1);
  const loc = bytecode
    ? symbols.map.lookupBytecodeOffset(frame.column)
    : symbols.map.lookup(frame.line, frame.column);
  if (!loc) return fail(REASONS.noMapping);
  return {
    frame: {
      ...asRaw(frame),
      function: loc.enclosingFunction ?? frame.function,
      file: loc.file,
      line: loc.line,
      column: loc.column,
      symbolicated: true,
      reason: null,
    },
    name: loc.name,
    named: loc.enclosingFunction !== null,
  };
}

/**
 * A JavaScript frame's original function name. Metro's maps name the function around a position
 * (its function maps); that name is already on the frame. Other maps name tokens, not the function
 * a position is in: the name at a frame's own position is whatever identifier is there (`Error`, a
 * callee). The name of the function frame i runs in is at the call site that entered it, which is
 * frame i + 1's position (its caller), so that is where it is read. The outermost frame, or one
 * whose caller did not map to a named token, keeps its name as sent.
 */
export function withCallerName(own: JsMapping, caller: JsMapping | undefined): SymbolicatedFrame {
  if (own.named || !own.frame.symbolicated || !caller?.frame.symbolicated || !caller.name) return own.frame;
  return { ...own.frame, function: caller.name };
}
