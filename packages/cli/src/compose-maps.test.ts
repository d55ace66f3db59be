import { SourceMapConsumer } from 'source-map';
import { composeHermesMap } from './compose-maps';
import type { SourceMapJson } from './source-map-json';
import {
  expectedAt,
  FUNCTION_MAPS,
  HERMES,
  hermesMap,
  METRO_SOURCES,
  metroMap,
  UNMAPPED_OFFSET,
} from './testing/react-native-maps';

// The composition of Metro's map and Hermes's (testing/react-native-maps.ts) read back with the
// `source-map` library (the one the core uses); each expected answer is computed from the tables.

describe('composeHermesMap', () => {
  it('maps each bytecode offset to the source position Metro maps its bundle position to', async () => {
    const composed = composeHermesMap(metroMap(), hermesMap(), 'index.android.bundle');
    expect(composed.file).toBe('index.android.bundle');
    const consumer = await new SourceMapConsumer(composed as never);
    try {
      for (const [offset, column] of HERMES) {
        const want = expectedAt(column);
        expect(consumer.originalPositionFor({ line: 1, column: offset })).toEqual({
          source: want.source,
          line: want.line,
          column: want.originalColumn,
          name: want.name,
        });
      }
    } finally {
      consumer.destroy();
    }
  });

  it("maps to nothing an offset whose bundle position Metro's map does not cover (not the offset before it)", async () => {
    const composed = composeHermesMap(metroMap(), hermesMap(), 'index.android.bundle');
    const consumer = await new SourceMapConsumer(composed as never);
    try {
      expect(consumer.originalPositionFor({ line: 1, column: UNMAPPED_OFFSET })).toEqual({
        source: null,
        line: null,
        column: null,
        name: null,
      });
    } finally {
      consumer.destroy();
    }
  });

  it("carries Metro's function maps and ignore list by source name, and Hermes's function offsets", () => {
    const composed = composeHermesMap(metroMap(), hermesMap(), 'index.android.bundle') as SourceMapJson & {
      sources: string[];
    };
    expect(composed.x_facebook_sources).toEqual(
      composed.sources.map((s) => FUNCTION_MAPS[METRO_SOURCES.indexOf(s)]),
    );
    expect(composed.sources).toEqual(['src/a.js', 'src/b.js']);
    expect(composed.x_google_ignoreList).toEqual([composed.sources.indexOf('src/a.js')]);
    expect(composed.x_hermes_function_offsets).toEqual({ 0: [100, 130] });
  });
});
