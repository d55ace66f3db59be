import type { ClickHouse } from '@svc/clickhouse';
import { UserInputError } from '@svc/errors';
import type { DebugFileKind, SymbolPlatform } from '@svc/tools-crash';
import { toChTime } from '../storage/time';
import { sha256Hex } from './debug-file-store';
import { isElf, parseElf } from './elf';
import { isMachO, parseMachO } from './macho';
import { describeProguard } from './proguard';

// Metadata of uploaded debug files (table debug_files, migration 10) and what an upload must be.

export const DEBUG_FILE_KINDS: readonly DebugFileKind[] = ['sourcemap', 'breakpad', 'proguard', 'dsym', 'so'];
export const SYMBOL_PLATFORMS: readonly SymbolPlatform[] = ['ios', 'android', 'web'];

/**
 * Which platforms a kind belongs to. A source map on ios/android is a React Native bundle's map.
 * A dSYM or .so maps frames when it is a Mach-O or ELF binary (its symbol table); anything else
 * of those kinds (a zip) is stored and listed only.
 */
export const KIND_PLATFORMS: Record<DebugFileKind, readonly SymbolPlatform[]> = {
  sourcemap: ['web', 'ios', 'android'],
  breakpad: ['ios', 'android'],
  proguard: ['android'],
  dsym: ['ios'],
  so: ['android'],
};
export const USABLE_KINDS: readonly DebugFileKind[] = ['sourcemap', 'breakpad', 'proguard', 'dsym', 'so'];

export interface DebugFileRow {
  file_id: string;
  kind: DebugFileKind;
  platform: SymbolPlatform;
  name: string;
  release: string;
  debug_id: string;
  module: string;
  sha256: string;
  size_bytes: string | number;
  /** Epoch ms (as ClickHouse returns Int64: a string). */
  uploaded_ms: string;
  /** 1 when the file can map frames: always but for a dSYM / .so that is no Mach-O / ELF binary. */
  readable: number;
}

/**
 * The id of one logical upload. Re-uploading the same (kind, platform, release, name) in a project
 * replaces the earlier file; anything else is a new file.
 */
export function debugFileId(
  projectId: string,
  kind: string,
  platform: string,
  release: string,
  name: string,
): string {
  return sha256Hex(JSON.stringify([projectId, kind, platform, release, name])).slice(0, 32);
}

/** The last path segment of a file name or URL, without query or fragment. */
export function baseName(pathOrUrl: string): string {
  const noQuery = pathOrUrl.replace(/[?#].*$/s, '');
  const parts = noQuery.split(/[/\\]/);
  return parts[parts.length - 1] ?? '';
}

/**
 * What frames are matched on, read from the uploaded bytes: a source map's `file` (the minified
 * file it describes), a Breakpad file's MODULE name (and its debug id), a raw file's own name. A
 * ProGuard mapping is matched by release only: no module; its `pg_map_id` is its debug id.
 * Malformed content is a 400: a file that can never map anything is refused at upload.
 */
export function describeUpload(
  kind: DebugFileKind,
  name: string,
  bytes: Buffer,
): { module: string; debugId: string | null; readable: boolean } {
  if (kind === 'sourcemap') {
    let map: unknown;
    try {
      map = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new UserInputError('A source map must be JSON.');
    }
    const m = map as { version?: unknown; mappings?: unknown; sections?: unknown; file?: unknown };
    if (typeof m !== 'object' || m === null || m.version !== 3)
      throw new UserInputError('A source map must be a JSON object with "version": 3.');
    if (typeof m.mappings !== 'string' && !Array.isArray(m.sections))
      throw new UserInputError('A source map needs "mappings" (or "sections" for an index map).');
    return {
      module: typeof m.file === 'string' ? baseName(m.file).slice(0, 1024) : '',
      debugId: null,
      readable: true,
    };
  }
  if (kind === 'breakpad') {
    // MODULE <os> <arch> <debug id> <name>: always the first line of a dump_syms output.
    const firstLine = bytes.subarray(0, 4096).toString('utf8').split(/\r?\n/, 1)[0] ?? '';
    const match = /^MODULE (\S+) (\S+) ([0-9A-Fa-f]+) (.+)$/.exec(firstLine.trimEnd());
    if (!match) throw new UserInputError('A Breakpad symbol file must start with a MODULE line.');
    return { module: baseName(match[4]!).slice(0, 1024), debugId: match[3]!.toUpperCase(), readable: true };
  }
  if (kind === 'proguard') {
    // Header comments, then class lines; a mapping whose first 1 MB names no class maps nothing.
    const head = describeProguard(bytes.subarray(0, 1024 * 1024).toString('utf8'));
    if (!head.hasClass)
      throw new UserInputError('A ProGuard/R8 mapping needs class lines ("original.Class -> a.b:").');
    return { module: '', debugId: head.mapId === null ? null : head.mapId.toUpperCase(), readable: true };
  }
  // dSYM / .so: the binary's own id when it is one; a file that claims to be one but cannot be
  // read is refused, anything else (a zipped dSYM bundle) is stored and listed only.
  const binary = kind === 'dsym' ? isMachO(bytes) : isElf(bytes);
  if (!binary) return { module: baseName(name), debugId: null, readable: false };
  try {
    const id = kind === 'dsym' ? parseMachO(bytes).uuid : parseElf(bytes).buildId;
    return { module: baseName(name), debugId: id, readable: true };
  } catch (err) {
    throw new UserInputError(
      `A ${kind === 'dsym' ? 'Mach-O' : 'ELF'} file that cannot be read: ${(err as Error).message}.`,
    );
  }
}

export async function insertDebugFile(
  ch: ClickHouse,
  row: Omit<DebugFileRow, 'uploaded_ms' | 'size_bytes' | 'readable'> & {
    readable: boolean;
    project_id: string;
    size_bytes: number;
    uploaded_at_ms: number;
  },
): Promise<void> {
  const { uploaded_at_ms, readable, ...rest } = row;
  await ch.insert('debug_files', [
    { ...rest, readable: readable ? 1 : 0, uploaded_at: toChTime(uploaded_at_ms) },
  ]);
}

const COLUMNS = `file_id, kind, platform, name, release, debug_id, module, sha256, size_bytes,
  toUnixTimestamp64Milli(uploaded_at) AS uploaded_ms, readable`;

/** The project's files, newest first; FINAL keeps only the latest upload of each file_id. */
export async function listDebugFiles(
  ch: ClickHouse,
  projectId: string,
  options: { platform?: SymbolPlatform; limit: number; offset?: number; signal?: AbortSignal },
): Promise<DebugFileRow[]> {
  return ch.query<DebugFileRow>(
    `SELECT ${COLUMNS} FROM debug_files FINAL
     WHERE project_id = {project_id:String}
       AND ({platform:String} = '' OR platform = {platform:String})
     ORDER BY uploaded_at DESC, file_id ASC
     LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
    {
      project_id: projectId,
      platform: options.platform ?? '',
      limit: options.limit,
      offset: options.offset ?? 0,
    },
    { signal: options.signal },
  );
}

/** Every file of these platforms that can map frames, newest first. */
export async function usableDebugFiles(
  ch: ClickHouse,
  projectId: string,
  platforms: readonly string[],
): Promise<DebugFileRow[]> {
  if (platforms.length === 0) return [];
  return ch.query<DebugFileRow>(
    `SELECT ${COLUMNS} FROM debug_files FINAL
     WHERE project_id = {project_id:String}
       AND platform IN {platforms:Array(String)}
       AND kind IN {kinds:Array(String)} AND readable = 1
     ORDER BY uploaded_at DESC, file_id ASC`,
    { project_id: projectId, platforms: [...platforms], kinds: [...USABLE_KINDS] },
  );
}

/** The platforms with a dSYM / .so that is no binary (a zip): to explain unmapped frames. */
export async function rawFilePlatforms(ch: ClickHouse, projectId: string): Promise<Set<string>> {
  const rows = await ch.query<{ platform: string }>(
    `SELECT DISTINCT platform FROM debug_files FINAL
     WHERE project_id = {project_id:String} AND kind IN ('dsym', 'so') AND readable = 0`,
    { project_id: projectId },
  );
  return new Set(rows.map((r) => r.platform));
}
