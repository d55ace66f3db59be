// Breakpad text symbol files (the output of `dump_syms`), as far as symbolication needs them:
//
//   MODULE <os> <arch> <debug id> <name>
//   FILE <number> <path>
//   FUNC [m] <address> <size> <parameter size> <name>
//   <address> <size> <line> <file number>          (line records of the preceding FUNC)
//   PUBLIC [m] <address> <parameter size> <name>
//
// Addresses are hex, relative to the module's load address. Other records (STACK, INFO, INLINE,
// INLINE_ORIGIN) are skipped. A lookup finds the FUNC whose range covers the address (binary
// search over start addresses) and then its line record the same way; an address no FUNC covers
// falls back to the nearest PUBLIC symbol below it, which names the function without a line.

export interface BreakpadModule {
  os: string;
  arch: string;
  debugId: string;
  name: string;
}

export interface BreakpadLocation {
  function: string;
  file: string | null;
  line: number | null;
}

export interface BreakpadSymbols {
  module: BreakpadModule;
  lookup(address: number): BreakpadLocation | null;
}

interface LineRecord {
  address: number;
  size: number;
  line: number;
  file: number;
}

interface FuncRecord {
  address: number;
  size: number;
  name: string;
  lines: LineRecord[];
}

interface PublicRecord {
  address: number;
  name: string;
}

const HEX = /^[0-9a-fA-F]{1,13}$/; // up to 2^52: exact as a JS number

function hex(value: string | undefined): number | null {
  return value !== undefined && HEX.test(value) ? Number.parseInt(value, 16) : null;
}

/** Parses a frame's address ("0x1a2b" or "1a2b"); null when it is not a hex number in range. */
export function parseFrameAddress(value: string): number | null {
  return hex(value.trim().replace(/^0[xX]/, ''));
}

/** Throws on a file without a MODULE line; malformed records are skipped, not fatal. */
export function parseBreakpad(text: string): BreakpadSymbols {
  const lines = text.split(/\r?\n/);
  const head = /^MODULE (\S+) (\S+) ([0-9A-Fa-f]+) (.+)$/.exec((lines[0] ?? '').trimEnd());
  if (!head) throw new Error('not a Breakpad symbol file: no MODULE line');
  const module: BreakpadModule = { os: head[1]!, arch: head[2]!, debugId: head[3]!, name: head[4]! };

  const files = new Map<number, string>();
  const funcs: FuncRecord[] = [];
  const publics: PublicRecord[] = [];
  let current: FuncRecord | null = null;

  for (let i = 1; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (line.length === 0) continue;
    if (line.startsWith('FILE ')) {
      const m = /^FILE (\d+) (.*)$/.exec(line);
      if (m) files.set(Number(m[1]), m[2]!);
      current = null;
    } else if (line.startsWith('FUNC ')) {
      // The optional "m" marks a function folded with others by the linker.
      const m = /^FUNC (?:m )?(\S+) (\S+) (\S+) (.*)$/.exec(line);
      const address = hex(m?.[1]);
      const size = hex(m?.[2]);
      current = null;
      if (m && address !== null && size !== null) {
        current = { address, size, name: m[4]!, lines: [] };
        funcs.push(current);
      }
    } else if (line.startsWith('PUBLIC ')) {
      const m = /^PUBLIC (?:m )?(\S+) (\S+) (.*)$/.exec(line);
      const address = hex(m?.[1]);
      if (m && address !== null) publics.push({ address, name: m[3]! });
      current = null;
    } else if (/^[0-9a-fA-F]/.test(line)) {
      if (!current) continue;
      const [a, s, l, f] = line.split(' ');
      const address = hex(a);
      const size = hex(s);
      if (address === null || size === null || !/^\d+$/.test(l ?? '') || !/^\d+$/.test(f ?? '')) continue;
      current.lines.push({ address, size, line: Number(l), file: Number(f) });
    } else {
      // STACK, INFO, INLINE, INLINE_ORIGIN, ...: not needed to name a frame.
      current = null;
    }
  }

  funcs.sort((a, b) => a.address - b.address);
  for (const f of funcs) f.lines.sort((a, b) => a.address - b.address);
  publics.sort((a, b) => a.address - b.address);

  return {
    module,
    lookup(address) {
      const func = lastAtOrBelow(funcs, address);
      if (func && address < func.address + func.size) {
        const rec = lastAtOrBelow(func.lines, address);
        if (rec && address < rec.address + rec.size) {
          return { function: func.name, file: files.get(rec.file) ?? null, line: rec.line };
        }
        return { function: func.name, file: null, line: null };
      }
      const pub = lastAtOrBelow(publics, address);
      // A PUBLIC symbol reaches up to the next FUNC or PUBLIC; an address past a FUNC that does
      // not cover it is not inside that PUBLIC.
      if (pub && (!func || func.address <= pub.address))
        return { function: pub.name, file: null, line: null };
      return null;
    },
  };
}

/** The last element whose address is <= `address` (elements sorted by address), or undefined. */
function lastAtOrBelow<T extends { address: number }>(items: readonly T[], address: number): T | undefined {
  let lo = 0;
  let hi = items.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.address <= address) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found >= 0 ? items[found] : undefined;
}
