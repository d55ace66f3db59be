import { SourceMapGenerator } from 'source-map';
import { LAYOUT, NATIVE_MODULES, type NativeFunction } from './frame-layout';
import { createRandom, deriveSeed } from './random';
import type { DemoDebugFile } from './records';

// The debug files a release pipeline would upload: a source map for the web bundle and a
// Breakpad text symbol file per native binary. They describe exactly the positions and
// addresses the demo's crash frames carry, so symbolicating the demo crashes really works.

const DEBUG_FILES_STREAM = 0x5eed_d0c5;

/** The source map of app.min.js: each call position of the demo frames to its original token. */
function sourceMap(): string {
  const generator = new SourceMapGenerator({ file: 'app.min.js' });
  for (const position of LAYOUT.bundle) {
    const mapping = {
      generated: { line: 1, column: position.generatedColumn },
      original: { line: position.original.line, column: position.original.column },
      source: position.original.source,
    };
    const callee = position.original.callee;
    generator.addMapping(callee === null ? mapping : { ...mapping, name: callee });
  }
  return generator.toString();
}

/**
 * A Breakpad text symbol file (the format `dump_syms` writes): MODULE, FILE records, then per
 * function a FUNC record followed by its line records (`address size line file`). Addresses are
 * hex offsets inside the module, as the demo frames' `address`.
 */
function breakpad(os: string, module: string, debugId: string, functions: NativeFunction[]): string {
  const files = [...new Set(functions.map((f) => f.file))];
  const out = [`MODULE ${os} arm64 ${debugId} ${module}`, ...files.map((file, i) => `FILE ${i} ${file}`)];
  for (const fn of functions) {
    const file = files.indexOf(fn.file);
    const firstLine = Math.min(...fn.lines.map((l) => l.line));
    out.push(`FUNC ${fn.address.toString(16)} ${fn.size.toString(16)} 0 ${fn.name}`);
    // The prologue belongs to the declaration, just above the first statement.
    out.push(`${fn.address.toString(16)} 20 ${Math.max(1, firstLine - 2)} ${file}`);
    for (const l of fn.lines) out.push(`${l.address.toString(16)} ${l.size.toString(16)} ${l.line} ${file}`);
    const end = fn.lines[fn.lines.length - 1]!;
    const tail = end.address + end.size;
    if (tail < fn.address + fn.size) {
      const maxLine = Math.max(...fn.lines.map((l) => l.line));
      out.push(`${tail.toString(16)} ${(fn.address + fn.size - tail).toString(16)} ${maxLine + 1} ${file}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** 32 hex digits of build uuid plus the age digit, uppercase, as Breakpad writes it. */
function debugId(seed: number, platform: string): string {
  const random = createRandom(deriveSeed(seed, DEBUG_FILES_STREAM + platform.length));
  return `${random.hex(32).toUpperCase()}0`;
}

/** The demo project's debug files; upload them before ingesting its crashes. */
export function generateDemoDebugFiles(options: { seed: number }): DemoDebugFile[] {
  return [
    { kind: 'sourcemap', platform: 'web', name: 'app.min.js.map', content: sourceMap() },
    {
      kind: 'breakpad',
      platform: 'ios',
      name: `${NATIVE_MODULES.ios}.sym`,
      content: breakpad('ios', NATIVE_MODULES.ios, debugId(options.seed, 'ios'), LAYOUT.native.ios),
    },
    {
      kind: 'breakpad',
      platform: 'android',
      name: `${NATIVE_MODULES.android}.sym`,
      content: breakpad(
        'Linux',
        NATIVE_MODULES.android,
        debugId(options.seed, 'android'),
        LAYOUT.native.android,
      ),
    },
  ];
}
