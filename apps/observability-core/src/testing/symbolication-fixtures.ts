import { SourceMapGenerator } from 'source-map';

// Debug files built in the tests: a minified bundle with a real source map, and a Breakpad file,
// each with the table the expected answers are computed from.

export interface BundleFunction {
  /** Name in the minified bundle (changes with every build). */
  minified: string;
  /** Name in the source (the map's `names`). */
  original: string;
  source: string;
  line: number;
}

export interface Mapping {
  generatedColumn: number; // 0-based, line 1
  source: string;
  line: number;
  column: number; // 0-based
  name: string | null;
}

export interface Bundle {
  code: string;
  map: string;
  mappings: Mapping[];
  /** Stack frames of the crash the bundle throws, top first: [minified name, 1-based column]. */
  stack: [string, number][];
}

/**
 * A one-line bundle of a call chain, `function a(){b()}function b(){c()}function c(){throw ...}`:
 * each declared name and each call token is mapped with its original name, the `throw` without
 * one. `stack` is where an engine reports the frames: the throw, then each call site.
 */
export function buildBundle(file: string, functions: BundleFunction[], prefix = ''): Bundle {
  const gen = new SourceMapGenerator({ file });
  const mappings: Mapping[] = [];
  const sites: [string, number][] = [];
  let code = prefix;
  functions.forEach((f, i) => {
    code += 'function ';
    mappings.push({
      generatedColumn: code.length,
      source: f.source,
      line: f.line,
      column: 9,
      name: f.original,
    });
    code += `${f.minified}(){`;
    const next = functions[i + 1];
    sites.push([f.minified, code.length + 1]);
    if (next) {
      mappings.push({
        generatedColumn: code.length,
        source: f.source,
        line: f.line + 1,
        column: 2,
        name: next.original,
      });
      code += `${next.minified}()}`;
    } else {
      mappings.push({
        generatedColumn: code.length,
        source: f.source,
        line: f.line + 1,
        column: 2,
        name: null,
      });
      code += 'throw new Error("boom")}';
    }
  });
  for (const m of mappings) {
    gen.addMapping({
      generated: { line: 1, column: m.generatedColumn },
      original: { line: m.line, column: m.column },
      source: m.source,
      ...(m.name ? { name: m.name } : {}),
    });
  }
  return { code, map: gen.toString(), mappings, stack: sites.reverse() };
}

/** Where a 1-based line-1 column comes from: the last mapping at or before it (plain scan). */
export function expectedOriginal(bundle: Bundle, column1: number): Mapping | null {
  let best: Mapping | null = null;
  for (const m of bundle.mappings) if (m.generatedColumn <= column1 - 1) best = m;
  return best;
}

export interface BreakpadFunc {
  address: number;
  size: number;
  name: string;
  /** [address, size, line, file index] */
  lines: [number, number, number, number][];
}

export function breakpadText(module: string, files: string[], funcs: BreakpadFunc[]): string {
  return [
    `MODULE Linux arm64 ABCDEF0123456789ABCDEF01234567890 ${module}`,
    ...files.map((f, i) => `FILE ${i} ${f}`),
    ...funcs.flatMap((f) => [
      `FUNC ${f.address.toString(16)} ${f.size.toString(16)} 0 ${f.name}`,
      ...f.lines.map(([a, s, l, n]) => `${a.toString(16)} ${s.toString(16)} ${l} ${n}`),
    ]),
    '',
  ].join('\n');
}
