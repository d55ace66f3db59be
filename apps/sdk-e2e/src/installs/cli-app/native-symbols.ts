import type { CommandResult } from '../testing';

// A Breakpad symbol file for a library gcc built, made with binutils the way dump_syms makes one:
// the MODULE id from the ELF build id, a FUNC per function symbol (nm), its line from the debug
// info (addr2line). The install proof's Android app has no dump_syms; this is its stand-in.

export interface NativeFunction {
  name: string;
  address: number;
  size: number;
  file: string;
  line: number;
}

/** dump_syms' module id of an ELF file: the build id's first 16 bytes as a GUID (first three fields byte-swapped), age 0. */
export function breakpadModuleId(buildIdHex: string): string {
  const bytes = Buffer.alloc(16);
  Buffer.from(buildIdHex, 'hex').copy(bytes, 0, 0, 16);
  const swapped = Buffer.concat([
    Buffer.from(bytes.subarray(0, 4)).reverse(),
    Buffer.from(bytes.subarray(4, 6)).reverse(),
    Buffer.from(bytes.subarray(6, 8)).reverse(),
    bytes.subarray(8, 16),
  ]);
  return `${swapped.toString('hex').toUpperCase()}0`;
}

/** The functions `names` of a library: `nm -S` gives address and size, `addr2line` file and line. */
export async function nativeFunctions(
  run: (command: string, args: string[]) => Promise<CommandResult>,
  library: string,
  names: readonly string[],
): Promise<NativeFunction[]> {
  const nm = await run('nm', ['-S', '--defined-only', library]);
  const symbols = new Map<string, { address: number; size: number }>();
  for (const line of nm.stdout.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) [Tt] (\S+)$/.exec(line.trim());
    if (m) symbols.set(m[3]!, { address: Number.parseInt(m[1]!, 16), size: Number.parseInt(m[2]!, 16) });
  }
  const found = names.map((name) => {
    const symbol = symbols.get(name);
    if (!symbol) throw new Error(`nm found no function ${name} in ${library}:\n${nm.stdout}`);
    return { name, ...symbol };
  });
  const where = await run('addr2line', ['-e', library, ...found.map((f) => `0x${f.address.toString(16)}`)]);
  const lines = where.stdout.trim().split('\n');
  return found.map((f, i) => {
    const m = /^(.*):(\d+)/.exec(lines[i] ?? '');
    if (!m) throw new Error(`addr2line has no line for ${f.name}: ${lines[i]}`);
    return { ...f, file: m[1]!, line: Number(m[2]) };
  });
}

export function breakpadSymbolFile(
  os: string,
  arch: string,
  id: string,
  module: string,
  funcs: NativeFunction[],
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
