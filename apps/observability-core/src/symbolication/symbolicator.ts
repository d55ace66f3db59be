import type { ClickHouse } from '@svc/clickhouse';
import type { Logger } from '@svc/tool-kit';
import { toChTime } from '../storage/time';
import { crashSignature } from './crash-signature';
import type { DebugFileStore } from './debug-file-store';
import { rawFilePlatforms, usableDebugFiles } from './debug-files';
import { createSymbolCache, type SymbolCache } from './symbol-cache';
import {
  type CrashForSymbolication,
  filesForCrash,
  normalizePlatform,
  type StoredFrame,
  type SymbolicationResult,
  symbolicateFrames,
} from './symbolicate';

/**
 * What symbolication reads of an ingested crash. Ingest calls this stage and passes its own
 * records through: the stage names only the fields it uses, so it never imports ingest.
 */
export interface IngestedCrash extends CrashForSymbolication {
  event_id: string;
  error_type: string;
  signature?: string;
}

/** Ingest's view: crashes with signatures settled, and the symbolication rows to store after them. */
export interface PreparedCrashes<C extends IngestedCrash> {
  crashes: C[];
  /** Writes the crash_symbolications rows; call after the crashes are stored. Never throws. */
  store(): Promise<void>;
}

export interface Symbolicator {
  /**
   * Symbolicates the crashes of an ingest batch for which the project already has a usable symbol
   * file, and computes a missing signature from the symbolicated frames. Never throws: when
   * anything fails, the crashes go on as sent (signature from the raw frames) and it is logged.
   */
  prepareIngest<C extends IngestedCrash>(
    projectId: string,
    crashes: C[],
    nowMs: number,
  ): Promise<PreparedCrashes<C>>;
  /** Symbolicates a stored crash and stores the result; false when the crash does not exist. */
  symbolicateStored(projectId: string, eventId: string, nowMs: number): Promise<boolean>;
  close(): void;
}

export interface SymbolicatorDeps {
  ch: ClickHouse;
  files: DebugFileStore;
  logger: Logger;
  /** Parsed symbol files kept in memory; default 16. */
  cacheEntries?: number;
}

export function createSymbolicator(deps: SymbolicatorDeps): Symbolicator {
  const cache: SymbolCache = createSymbolCache(deps.files, deps.cacheEntries);

  const row = (projectId: string, eventId: string, result: SymbolicationResult, nowMs: number) => ({
    project_id: projectId,
    event_id: eventId,
    frames: JSON.stringify(result.frames),
    symbolicated: result.symbolicated ? 1 : 0,
    updated_at: toChTime(nowMs),
  });

  return {
    async prepareIngest(projectId, crashes, nowMs) {
      const nothing: PreparedCrashes<(typeof crashes)[number]> = { crashes, store: async () => {} };
      if (crashes.length === 0) return nothing;
      try {
        const platforms = [...new Set(crashes.map((c) => normalizePlatform(c.platform)))];
        const files = await usableDebugFiles(deps.ch, projectId, platforms);
        if (files.length === 0) return nothing;
        const rows: Record<string, unknown>[] = [];
        const settled: (typeof crashes)[number][] = [];
        for (const crash of crashes) {
          const applicable = filesForCrash(files, crash);
          if (applicable.length === 0) {
            settled.push(crash);
            continue;
          }
          const result = await symbolicateFrames(crash, applicable, false, cache);
          rows.push(row(projectId, crash.event_id, result, nowMs));
          // Signature from the original function names: stable across releases (crash-signature.ts).
          settled.push(
            crash.signature === undefined
              ? { ...crash, signature: crashSignature(crash.error_type, result.frames) }
              : crash,
          );
        }
        return {
          crashes: settled,
          store: async () => {
            if (rows.length === 0) return;
            try {
              await deps.ch.insert('crash_symbolications', rows);
            } catch (err) {
              deps.logger.error({ err, project_id: projectId }, 'storing ingest-time symbolication failed');
            }
          },
        };
      } catch (err) {
        deps.logger.error({ err, project_id: projectId }, 'ingest-time symbolication failed');
        return nothing;
      }
    },

    async symbolicateStored(projectId, eventId, nowMs) {
      const found = await deps.ch.query<{ platform: string; app_version: string; frames: string }>(
        `SELECT platform, app_version, frames FROM crashes
         WHERE project_id = {project_id:String} AND event_id = {event_id:String}
         ORDER BY timestamp DESC LIMIT 1`,
        { project_id: projectId, event_id: eventId },
      );
      const stored = found[0];
      if (!stored) return false;
      const crash: CrashForSymbolication = {
        platform: stored.platform,
        app_version: stored.app_version,
        frames: parseFrames(stored.frames),
      };
      const platform = normalizePlatform(crash.platform);
      const [files, raw] = await Promise.all([
        usableDebugFiles(deps.ch, projectId, [platform]),
        rawFilePlatforms(deps.ch, projectId),
      ]);
      const result = await symbolicateFrames(crash, filesForCrash(files, crash), raw.has(platform), cache);
      await deps.ch.insert('crash_symbolications', [row(projectId, eventId, result, nowMs)]);
      return true;
    },

    close: () => cache.clear(),
  };
}

/** crashes.frames as written by ingest; anything else (never expected) maps to no frames. */
function parseFrames(text: string): StoredFrame[] {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.filter(
      (f): f is StoredFrame =>
        typeof f === 'object' && f !== null && typeof f.function === 'string' && typeof f.file === 'string',
    );
  } catch {
    return [];
  }
}
