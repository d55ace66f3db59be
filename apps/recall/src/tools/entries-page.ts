import { type FileProblem, parseEntry, parseProblem } from '../file-codec';
import { type ScanStats, scanFile } from '../file-reader';
import type { StoredBytes } from '../file-store';
import type { ReadLimits, ReadPacer } from '../read-budget';
import { type EntryItem, sanitizeEntry } from './sanitize-entry';

export interface EntriesQuery {
  after_line?: number | undefined;
  limit: number;
  level?: string | undefined;
  q?: string | undefined;
}

/** What log.file_entries says about the part of the file one call read (docs/recall.md). */
export interface EntriesPage {
  status: 'ok' | 'unreadable';
  problem: FileProblem | null;
  /** Entries parsed by this call, matching or not: those after after_line up to scanned_through_line. */
  lines_read: number;
  items: EntryItem[];
  has_more: boolean;
  /** Every line up to this one is accounted for: the next page starts after it (0: none could be read). */
  scanned_through_line: number;
}

/**
 * One page of a file's entries: reading starts after `after_line` and stops as soon as the answer
 * is known, so a call costs what it returns plus the filtered-out lines it passed, never more than
 * the limits allow:
 * - the page is full (`limit` entries, or `pageBytes` of them) and one more matching entry was seen;
 * - `parsedLines` / `parsedBytes` were parsed without filling the page (a filter matching little);
 * - the call's time ran out after some lines past `after_line` were read (before that, the time
 *   budget error: there is no page to answer);
 * - a problem stops reading (entries before it are listed), or the file ends.
 * `has_more` is true in the first three cases: the next page is `after_line: scanned_through_line`.
 */
export async function readEntriesPage(
  bytes: StoredBytes,
  key: Buffer,
  query: EntriesQuery,
  limits: ReadLimits,
  pacer: ReadPacer,
): Promise<EntriesPage & { stats: ScanStats }> {
  const afterLine = query.after_line ?? 0;
  const level = query.level?.toLowerCase();
  const needle = query.q?.toLowerCase();
  const items: EntryItem[] = [];
  let pageBytes = 0;
  let parsedLines = 0;
  let parsedBytes = 0;
  let linesRead = 0;
  /** The first line this call did not account for, when it stopped before the end. */
  let stoppedAt = 0;
  let problem: FileProblem | null = null;

  const end = await scanFile(
    bytes,
    key,
    (line, text, size) => {
      if (parsedLines >= limits.parsedLines || parsedBytes + size > limits.parsedBytes) {
        stoppedAt = line;
        return 'stop';
      }
      parsedLines += 1;
      parsedBytes += size;
      const entry = parseEntry(text, line);
      if (!entry) {
        problem = parseProblem(line);
        return 'stop';
      }
      const matches =
        (level === undefined || entry.level.toLowerCase() === level) &&
        (needle === undefined ||
          entry.message.toLowerCase().includes(needle) ||
          entry.tag?.toLowerCase().includes(needle) === true);
      if (matches) {
        if (items.length >= query.limit) {
          stoppedAt = line;
          return 'stop';
        }
        const item = sanitizeEntry(entry);
        const itemBytes = JSON.stringify(item).length;
        if (items.length > 0 && pageBytes + itemBytes > limits.pageBytes) {
          stoppedAt = line;
          return 'stop';
        }
        items.push(item);
        pageBytes += itemBytes;
      }
      linesRead += 1;
      return 'continue';
    },
    { afterLine, pacer, answerAtDeadline: true },
  );
  if (end.end === 'problem') problem = end.problem;
  // The last line read or passed over: before a problem, the line before it (0 when nothing
  // could be decrypted); at the end of the file, its last line; else the line before the one
  // reading stopped at.
  const scannedThrough =
    problem !== null
      ? (problem.line ?? 1) - 1
      : end.end === 'eof' || end.end === 'deadline'
        ? end.lines
        : stoppedAt - 1;
  return {
    status: problem ? 'unreadable' : 'ok',
    problem,
    lines_read: linesRead,
    items,
    has_more: problem === null && (end.end === 'stopped' || end.end === 'deadline'),
    scanned_through_line: scannedThrough,
    stats: end.stats,
  };
}
