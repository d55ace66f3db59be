import { SourceMapConsumer } from 'source-map';

// Web frames through the `source-map` library (0.7: the consumer is created asynchronously and
// holds WASM memory until destroy()). Stack traces give 1-based lines and columns (V8, Firefox,
// Safari); source-map wants 1-based lines and 0-based columns and answers the same way. This
// module takes and returns the stack-trace convention: columns are 1-based on both sides.

export interface SourceLocation {
  function: string | null;
  file: string;
  line: number;
  column: number | null;
}

export interface ParsedSourceMap {
  /** Where the generated position came from, or null when the map has no mapping there. */
  lookup(line: number, column: number): SourceLocation | null;
  destroy(): void;
}

export async function parseSourceMap(raw: string): Promise<ParsedSourceMap> {
  const consumer = await new SourceMapConsumer(raw);
  return {
    lookup(line, column) {
      const pos = consumer.originalPositionFor({
        line,
        column: Math.max(0, column - 1),
        bias: SourceMapConsumer.GREATEST_LOWER_BOUND,
      });
      if (pos.source === null || pos.line === null) return null;
      return {
        function: pos.name,
        file: pos.source,
        line: pos.line,
        column: pos.column === null ? null : pos.column + 1,
      };
    },
    destroy: () => consumer.destroy(),
  };
}
