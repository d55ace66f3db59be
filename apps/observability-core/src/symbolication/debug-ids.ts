import type { DebugFileRow } from './debug-files';

// Which uploaded native file is the very build a frame ran in: by the module's id, never by its
// name alone (the slices of a universal dSYM, the ABIs of an NDK library and two builds of one
// release share a name; another build's symbols give wrong names, worse than none).
//
// One build is written in three ways, all hex, compared without dashes and case:
// - iOS: the Mach-O LC_UUID (8-4-4-4-12, as crash reports and dwarfdump print it).
// - Android: the ELF GNU build id (usually 20 bytes, in file order, as tombstones print it).
// - Breakpad: the MODULE line's id, 32 hex digits of a GUID plus the age (`0` for both above).
//   dump_syms writes a Mach-O UUID as it is; an ELF build id as a GUID made of its first 16 bytes
//   (zero-padded when shorter) with the first three fields byte-swapped (Breakpad's
//   FileID::ConvertIdentifierToUUIDString: htonl on bytes 0-3, htons on 4-5 and 6-7).

const BREAKPAD_ID_LENGTH = 33; // 32 GUID digits + a one-digit age: what dump_syms writes for both

/** Upper-case hex without dashes. */
export function normalizeDebugId(id: string): string {
  return id.replace(/-/g, '').toUpperCase();
}

/** The Breakpad module id of a Mach-O UUID (ios) or an ELF build id (android), or null. */
export function breakpadIdOf(nativeId: string, platform: string): string | null {
  const hex = normalizeDebugId(nativeId);
  if (!/^[0-9A-F]*$/.test(hex) || hex.length === 0 || hex.length % 2 !== 0) return null;
  if (platform === 'ios') return hex.length === 32 ? `${hex}0` : null;
  if (platform !== 'android') return null;
  const guid = hex.slice(0, 32).padEnd(32, '0');
  const swap = (from: number, to: number) => (guid.slice(from, to).match(/../g) ?? []).reverse().join('');
  return `${swap(0, 8)}${swap(8, 12)}${swap(12, 16)}${guid.slice(16)}0`;
}

/** An id as a Breakpad module id: itself when it has that form already. */
function asBreakpadId(id: string, platform: string): string | null {
  const hex = normalizeDebugId(id);
  return hex.length === BREAKPAD_ID_LENGTH ? hex : breakpadIdOf(hex, platform);
}

/**
 * Whether `file` is the build a frame with `frameId` ran in. Two native ids (UUID / build id) are
 * compared in full; when either side is a Breakpad id, both are compared in Breakpad's form (which
 * keeps only the first 16 bytes of a build id, as Breakpad itself does). A file without an id
 * (a binary with no build id note) never matches an id.
 */
export function fileHasDebugId(file: DebugFileRow, frameId: string, platform: string): boolean {
  const fileId = normalizeDebugId(file.debug_id ?? '');
  const wanted = normalizeDebugId(frameId);
  if (fileId === '' || wanted === '') return false;
  if (fileId === wanted) return true;
  const fileIsBreakpad = file.kind === 'breakpad';
  const frameIsBreakpad = wanted.length === BREAKPAD_ID_LENGTH;
  if (!fileIsBreakpad && !frameIsBreakpad) return false;
  const a = fileIsBreakpad ? fileId : asBreakpadId(fileId, platform);
  const b = asBreakpadId(wanted, platform);
  return a !== null && a === b;
}
