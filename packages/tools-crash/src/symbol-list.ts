import { defineTool, isoTimestamp, listOf } from '@svc/tool-kit';
import { z } from 'zod';

/** Platforms debug files are uploaded for. */
export const symbolPlatform = z.enum(['ios', 'android', 'web']);
export type SymbolPlatform = z.infer<typeof symbolPlatform>;

/**
 * What an uploaded file is: a source map (web, or a React Native bundle's on ios/android), a
 * Breakpad text symbol file (made by `dump_syms` for iOS and Android native code), an Android
 * R8/ProGuard `mapping.txt`, an iOS dSYM (its Mach-O DWARF file) or an Android NDK `.so` (ELF).
 */
export const debugFileKind = z.enum(['sourcemap', 'breakpad', 'proguard', 'dsym', 'so']);
export type DebugFileKind = z.infer<typeof debugFileKind>;

/** symbol.list has no `limit` parameter (docs/tools.md); at most this many files come back, newest first. */
export const SYMBOL_LIST_MAX = 1000;

export const debugFile = z.strictObject({
  file_id: z
    .string()
    .describe('Stable id of the upload; re-uploading the same name and release replaces it.'),
  name: z.string().describe('The file name given at upload (display only).'),
  kind: debugFileKind,
  platform: symbolPlatform,
  release: z.string().nullable().describe('The app_version the file belongs to; null: any release.'),
  debug_id: z.string().nullable(),
  module: z
    .string()
    .nullable()
    .describe(
      "What frames are matched on: the source map's minified file name or the Breakpad module name; null for ProGuard mappings (matched by release).",
    ),
  usable: z
    .boolean()
    .describe(
      'True when the file can map frames: false only for a dSYM or .so that is no Mach-O or ELF binary (a zip), which is stored and listed only.',
    ),
  size_bytes: z.number().int().nonnegative(),
  sha256: z.string(),
  uploaded_at: isoTimestamp,
});
export type DebugFile = z.infer<typeof debugFile>;

export const symbolListInput = z.strictObject({
  platform: symbolPlatform.optional().describe('Only files of this platform: ios, android or web.'),
});
export const symbolListOutput = listOf(debugFile);

export const symbolList = defineTool({
  name: 'symbol.list',
  title: 'Uploaded debug files',
  description:
    'Debug-symbol files uploaded for the project (source maps of web and React Native bundles, Breakpad ' +
    'files, Android ProGuard mappings, iOS dSYMs, Android .so files), newest first, optionally of one platform; at most 1000. Returns ' +
    'name, kind, release, module and usable (can symbolicate). Check it before ' +
    'crash.symbolicate.',
  input: symbolListInput,
  output: symbolListOutput,
  capability: 'base',
  backend: 'core',
  example: { platform: 'ios' },
});
