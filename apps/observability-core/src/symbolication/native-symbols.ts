// A binary's function symbols (ELF, Mach-O) as a lookup by module-relative address: the function
// whose range covers the address; a symbol without a size (Mach-O has none) reaches up to the next
// symbol, and never past the end of its section. Names are as the symbol table has them: C++ and Swift names stay mangled.

export interface NativeSymbols {
  lookup(address: number): { function: string } | null;
}

export interface FunctionSymbol {
  address: number;
  /** 0 when the format gives no size. */
  size: number;
  /** The end of the symbol's section: how far a symbol without a size can reach. */
  sectionEnd: number;
  name: string;
}

export function symbolTable(symbols: readonly FunctionSymbol[]): NativeSymbols {
  // One symbol per address: the first seen (a full symbol table before the dynamic one).
  const byAddress = new Map<number, FunctionSymbol>();
  for (const s of symbols) if (!byAddress.has(s.address)) byAddress.set(s.address, s);
  const sorted = [...byAddress.values()].sort((a, b) => a.address - b.address);
  return {
    lookup(address) {
      let lo = 0;
      let hi = sorted.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        if (sorted[mid]!.address <= address) {
          found = mid;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      const symbol = sorted[found];
      if (!symbol) return null;
      const next = sorted[found + 1];
      const end =
        symbol.size > 0
          ? symbol.address + symbol.size
          : Math.min(next?.address ?? Number.POSITIVE_INFINITY, symbol.sectionEnd);
      return address < end ? { function: symbol.name } : null;
    },
  };
}
