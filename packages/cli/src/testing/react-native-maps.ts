import { SourceMapGenerator } from 'source-map';
import type { SourceMapJson } from '../source-map-json';

// A React Native build's two maps built from tables: Metro's (bundle position -> source) and
// Hermes's (bytecode offset -> bundle position, all on the bundle's line 1).

export interface MetroEntry {
  column: number;
  source: string;
  line: number;
  originalColumn: number;
  name: string | null;
}
// Added in this order, so Metro's `sources` are [unused, b, a]: the composed map (sources in order
// of first use, `unused` never reached from the bytecode) numbers them otherwise.
export const METRO: MetroEntry[] = [
  { column: 60, source: 'src/unused.js', line: 1, originalColumn: 0, name: null },
  { column: 10, source: 'src/b.js', line: 7, originalColumn: 2, name: 'helper' },
  { column: 25, source: 'src/b.js', line: 8, originalColumn: 4, name: null },
  { column: 0, source: 'src/a.js', line: 3, originalColumn: 0, name: 'main' },
  { column: 40, source: 'src/a.js', line: 5, originalColumn: 0, name: 'finish' },
];
/** [bytecode offset, bundle column]; all on the bundle's line 1. */
export const HERMES: [number, number][] = [
  [100, 0],
  [120, 12], // inside Metro's segment at 10
  [130, 27],
  [140, 40],
];
/**
 * A bytecode offset whose bundle position (line 2, column 2: Metro's module wrapper) no segment of
 * Metro's covers: line 2's first segment is at column 14.
 */
export const UNMAPPED_OFFSET = 150;

export const METRO_SOURCES = ['src/unused.js', 'src/b.js', 'src/a.js'];
export const FUNCTION_MAPS = METRO_SOURCES.map((s) => ({ names: [`<global:${s}>`], mappings: 'AAA' }));

export function metroMap(): SourceMapJson {
  const gen = new SourceMapGenerator({});
  for (const m of METRO)
    gen.addMapping({
      generated: { line: 1, column: m.column },
      original: { line: m.line, column: m.originalColumn },
      source: m.source,
      ...(m.name ? { name: m.name } : {}),
    });
  gen.addMapping({
    generated: { line: 2, column: 14 },
    original: { line: 9, column: 0 },
    source: 'src/a.js',
  });
  const json = gen.toJSON() as unknown as SourceMapJson & { sources: string[] };
  if (json.sources.join() !== METRO_SOURCES.join())
    throw new Error(`unexpected source order ${json.sources}`);
  // src/a.js ignored (as Metro marks its runtime's polyfills).
  return { ...json, x_facebook_sources: FUNCTION_MAPS, x_google_ignoreList: [2] };
}

export function hermesMap(): SourceMapJson {
  const gen = new SourceMapGenerator({ file: 'index.android.bundle' });
  for (const [offset, column] of HERMES)
    gen.addMapping({
      generated: { line: 1, column: offset },
      original: { line: 1, column },
      source: 'index.android.bundle',
    });
  gen.addMapping({
    generated: { line: 1, column: UNMAPPED_OFFSET },
    original: { line: 2, column: 2 },
    source: 'index.android.bundle',
  });
  return { ...(gen.toJSON() as unknown as SourceMapJson), x_hermes_function_offsets: { 0: [100, 130] } };
}

/** Metro's entry at or before a bundle column (the lookup's greatest lower bound). */
export function expectedAt(bundleColumn: number): MetroEntry {
  const before = METRO.filter((m) => m.column <= bundleColumn);
  return before.reduce((a, b) => (b.column > a.column ? b : a));
}
