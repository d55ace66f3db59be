import { createHash } from 'node:crypto';

/** Kinds the core stores (its `kind` parameter). */
export type DebugFileKind = 'sourcemap' | 'breakpad' | 'dsym' | 'so' | 'proguard';
export type Platform = 'ios' | 'android' | 'web';

/** One upload: what the core is told (kind, platform, name, debug id) and the bytes. */
export interface DebugFile {
  kind: DebugFileKind;
  platform: Platform;
  /** The upload's name: with kind, platform and release, what a later upload replaces. */
  name: string;
  debugId: string | null;
  /** Where the bytes came from (a path, `path (arm64)` for a slice), for the output line. */
  source: string;
  bytes: Buffer;
  sha256: string;
}

export function debugFile(fields: Omit<DebugFile, 'sha256'>): DebugFile {
  return { ...fields, sha256: createHash('sha256').update(fields.bytes).digest('hex') };
}
