import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SourceMapGenerator } from 'source-map';

// Build outputs as an app's build leaves them, written into a temp dir by the tests, each with the
// table the expected answers are computed from.

export function writeFile(root: string, path: string, content: string | Buffer): string {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
  return full;
}

/** A Breakpad function: [address, size, line] rows in one source file. */
export interface SymFunction {
  address: number;
  size: number;
  name: string;
  file: string;
  line: number;
}

export function breakpadSym(
  os: string,
  arch: string,
  id: string,
  module: string,
  funcs: SymFunction[],
): string {
  const files = [...new Set(funcs.map((f) => f.file))];
  return [
    `MODULE ${os} ${arch} ${id} ${module}`,
    ...files.map((f, i) => `FILE ${i} ${f}`),
    ...funcs.flatMap((f) => [
      `FUNC ${f.address.toString(16)} ${f.size.toString(16)} 0 ${f.name}`,
      `${f.address.toString(16)} ${f.size.toString(16)} ${f.line} ${files.indexOf(f.file)}`,
    ]),
    '',
  ].join('\n');
}

/** An R8 mapping.txt with its header (pg_map_id) and one class. */
export function r8Mapping(mapId: string): string {
  return [
    '# compiler: R8',
    '# compiler_version: 8.5.35',
    '# min_api: 24',
    '# {"id":"com.android.tools.r8.mapping","version":"2.2"}',
    `# pg_map_id: ${mapId}`,
    '# pg_map_hash: SHA-256 0000000000000000000000000000000000000000000000000000000000000000',
    'com.example.shop.Checkout -> a.a:',
    '# {"id":"sourceFile","fileName":"Checkout.kt"}',
    '    1:1:void <init>():10:10 -> <init>',
    '    2:5:void submitOrder(java.lang.String):21:24 -> a',
    '    6:9:void checkStock(int):40:43 -> b',
    '',
  ].join('\n');
}

/** One minified line `function a(){b()}function b(){throw new Error("out of stock")}` and its map. */
export interface WebBundle {
  code: string;
  map: string;
  /** 1-based columns of the frames a crash reports, top first, with where they come from. */
  frames: { minified: string; column: number; source: string; line: number }[];
}

export function webBundle(file: string): WebBundle {
  const gen = new SourceMapGenerator({ file });
  const code = 'function a(){b()}function b(){throw new Error("out of stock")}';
  const call = code.indexOf('b()}');
  const thrown = code.indexOf('throw');
  const add = (column: number, line: number, name?: string) =>
    gen.addMapping({
      generated: { line: 1, column },
      original: { line, column: 2 },
      source: 'src/checkout.ts',
      ...(name ? { name } : {}),
    });
  add(code.indexOf('function a'), 10, 'submitOrder');
  add(call, 11, 'checkStock');
  add(code.indexOf('function b'), 20, 'checkStock');
  add(thrown, 21);
  return {
    code,
    map: gen.toString(),
    frames: [
      { minified: 'b', column: thrown + 1, source: 'src/checkout.ts', line: 21 },
      { minified: 'a', column: call + 1, source: 'src/checkout.ts', line: 11 },
    ],
  };
}
