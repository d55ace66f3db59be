import { type BasicSourceMapConsumer, type RawSourceMap, SourceMapConsumer } from 'source-map';
import { type FunctionMaps, readFunctionMaps } from './function-maps';

// JavaScript frames through the `source-map` library (0.7: the consumer is created asynchronously
// and holds WASM memory until destroy()). Stack traces give 1-based lines and columns (V8, Firefox,
// Safari, JavaScriptCore); source-map wants 1-based lines and 0-based columns and answers the same
// way. This module takes and returns the stack-trace convention: columns are 1-based on both sides.
//
// Hermes bytecode is the exception. A release React Native build compiles Metro's bundle to
// bytecode, and Hermes names a frame's place as "address at index.android.bundle:1:<offset>": line
// 1 and the instruction's offset in the bytecode. hermesc's map (and Metro's map composed with it)
// records exactly that: line 1, column = offset, 0-based, so an offset is looked up as it is.

export interface SourceLocation {
  /** The identifier at the position, when the map names one (often a callee, not the function). */
  name: string | null;
  /** The function the position is in, from Metro's function maps; null when the map has none. */
  enclosingFunction: string | null;
  file: string;
  line: number;
  column: number | null;
}

export interface ParsedSourceMap {
  /** True for a map of Hermes bytecode (hermesc writes `x_hermes_function_offsets`; composing keeps it). */
  readonly hermesBytecode: boolean;
  /** Where the generated position (1-based line and column) came from, or null when unmapped. */
  lookup(line: number, column: number): SourceLocation | null;
  /** Where a Hermes bytecode offset came from, or null when unmapped. */
  lookupBytecodeOffset(offset: number): SourceLocation | null;
  destroy(): void;
}

export async function parseSourceMap(raw: string): Promise<ParsedSourceMap> {
  const json: unknown = JSON.parse(raw);
  if (typeof json !== 'object' || json === null) throw new Error('a source map is a JSON object');
  const map = json as Record<string, unknown>;
  // Checked at upload (version 3, mappings or sections); the library validates the rest.
  const consumer = (await new SourceMapConsumer(map as unknown as RawSourceMap)) as BasicSourceMapConsumer;
  const functions: FunctionMaps = readFunctionMaps(map, consumer.sources ?? []);
  const at = (line: number, zeroBasedColumn: number): SourceLocation | null => {
    const pos = consumer.originalPositionFor({
      line,
      column: Math.max(0, zeroBasedColumn),
      bias: SourceMapConsumer.GREATEST_LOWER_BOUND,
    });
    if (pos.source === null || pos.line === null) return null;
    return {
      name: pos.name,
      enclosingFunction: functions.functionAt(pos.source, pos.line, pos.column ?? 0),
      file: pos.source,
      line: pos.line,
      column: pos.column === null ? null : pos.column + 1,
    };
  };
  return {
    hermesBytecode:
      typeof map.x_hermes_function_offsets === 'object' && map.x_hermes_function_offsets !== null,
    lookup: (line, column) => at(line, column - 1),
    lookupBytecodeOffset: (offset) => at(1, offset),
    destroy: () => consumer.destroy(),
  };
}
