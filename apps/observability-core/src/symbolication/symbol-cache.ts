import type { DebugFileKind } from '@svc/tools-crash';
import { type BreakpadSymbols, parseBreakpad } from './breakpad';
import type { DebugFileStore } from './debug-file-store';
import { parseElf } from './elf';
import { parseMachO } from './macho';
import type { NativeSymbols } from './native-symbols';
import { type ProguardMapping, parseProguard } from './proguard';
import { type ParsedSourceMap, parseSourceMap } from './source-maps';

/** A parsed symbol file, or why it cannot be used. */
export type LoadedSymbols =
  | { kind: 'sourcemap'; map: ParsedSourceMap }
  | { kind: 'breakpad'; symbols: BreakpadSymbols }
  | { kind: 'proguard'; mapping: ProguardMapping }
  | { kind: 'binary'; symbols: NativeSymbols }
  | { kind: 'unreadable'; reason: string };

export interface SymbolLease {
  symbols: LoadedSymbols;
  release(): void;
}

/**
 * Parsed symbol files, keyed by content hash (a re-upload has a new hash, so nothing stale is
 * served), at most `maxEntries` kept. Parsing a large source map, Breakpad file or ProGuard mapping costs far more
 * than a lookup, so ingest and the worker reuse them. An entry in use (leased) is never evicted,
 * since evicting a source map frees its WASM memory.
 */
export interface SymbolCache {
  acquire(sha256: string, kind: DebugFileKind): Promise<SymbolLease>;
  /** Frees every unleased entry (shutdown, tests). */
  clear(): void;
}

interface Entry {
  loading: Promise<LoadedSymbols>;
  leases: number;
  lastUsed: number;
}

export function createSymbolCache(store: DebugFileStore, maxEntries = 16): SymbolCache {
  const entries = new Map<string, Entry>();
  let clock = 0;

  async function load(sha256: string, kind: DebugFileKind): Promise<LoadedSymbols> {
    const bytes = await store.get(sha256);
    if (!bytes) return { kind: 'unreadable', reason: 'symbol file is missing from storage' };
    try {
      if (kind === 'sourcemap') return { kind, map: await parseSourceMap(bytes.toString('utf8')) };
      if (kind === 'breakpad') return { kind, symbols: parseBreakpad(bytes.toString('utf8')) };
      if (kind === 'proguard') return { kind, mapping: parseProguard(bytes.toString('utf8')) };
      if (kind === 'dsym') return { kind: 'binary', symbols: parseMachO(bytes) };
      return { kind: 'binary', symbols: parseElf(bytes) };
    } catch {
      return { kind: 'unreadable', reason: 'symbol file could not be parsed' };
    }
  }

  function free(entry: Entry) {
    void entry.loading.then((s) => {
      if (s.kind === 'sourcemap') s.map.destroy();
    });
  }

  function trim() {
    while (entries.size > maxEntries) {
      let victim: [string, Entry] | undefined;
      for (const item of entries) {
        if (item[1].leases === 0 && (!victim || item[1].lastUsed < victim[1].lastUsed)) victim = item;
      }
      if (!victim) return;
      entries.delete(victim[0]);
      free(victim[1]);
    }
  }

  return {
    async acquire(sha256, kind) {
      const key = `${kind}:${sha256}`;
      let entry = entries.get(key);
      if (!entry) {
        entry = { loading: load(sha256, kind), leases: 0, lastUsed: 0 };
        entries.set(key, entry);
      }
      entry.leases += 1;
      entry.lastUsed = ++clock;
      trim();
      const held = entry;
      let symbols: LoadedSymbols;
      try {
        symbols = await held.loading;
      } catch {
        // A storage read error: not cached, so the next attempt reads again.
        held.leases -= 1;
        if (entries.get(key) === held) entries.delete(key);
        throw new Error('symbol file could not be read');
      }
      let released = false;
      return {
        symbols,
        release() {
          if (released) return;
          released = true;
          held.leases -= 1;
          trim();
        },
      };
    },
    clear() {
      for (const [key, entry] of entries) {
        if (entry.leases > 0) continue;
        entries.delete(key);
        free(entry);
      }
    },
  };
}
