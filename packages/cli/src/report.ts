import type { DebugFile } from './debug-file';
import type { UploadResult } from './uploader';

// What the CLI prints: one line per file on stdout (text, or one JSON object per line with
// --json), and a summary (stderr as text; the last JSON line with --json).

export type FileStatus = UploadResult['status'] | 'would_upload' | 'duplicate';

export interface FileLine {
  status: FileStatus;
  file: DebugFile;
  release: string | undefined;
  attempts?: number;
  httpStatus?: number | null;
  fileId?: string | null;
  message?: string;
  /** For a duplicate: the source whose upload it shares. */
  duplicateOf?: string;
}

const LABELS: Record<FileStatus, string> = {
  uploaded: 'uploaded',
  failed: 'FAILED',
  unauthorized: 'REFUSED',
  not_sent: 'not sent',
  would_upload: 'would upload',
  duplicate: 'duplicate',
};

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function textLine(line: FileLine): string {
  const { file } = line;
  const parts = [
    LABELS[line.status],
    `${file.kind}/${file.platform}`,
    file.name,
    `debug_id=${file.debugId ?? '-'}`,
    formatSize(file.bytes.length),
    `sha256=${file.sha256}`,
    `from ${file.source}`,
  ];
  if (line.duplicateOf) parts.push(`(same bytes as ${line.duplicateOf}: uploaded once)`);
  if (line.attempts && line.attempts > 1) parts.push(`(${line.attempts} attempts)`);
  if (line.message) parts.push(`: ${line.message}`);
  return parts.join('  ');
}

export function jsonLine(line: FileLine): string {
  const { file } = line;
  return JSON.stringify({
    type: 'file',
    status: line.status,
    kind: file.kind,
    platform: file.platform,
    name: file.name,
    release: line.release ?? null,
    debug_id: file.debugId,
    size_bytes: file.bytes.length,
    sha256: file.sha256,
    source: file.source,
    ...(line.duplicateOf !== undefined ? { duplicate_of: line.duplicateOf } : {}),
    ...(line.attempts !== undefined ? { attempts: line.attempts } : {}),
    ...(line.httpStatus !== undefined ? { http_status: line.httpStatus } : {}),
    ...(line.fileId !== undefined ? { file_id: line.fileId } : {}),
    ...(line.message !== undefined ? { error: line.message } : {}),
  });
}

export type Summary = Record<FileStatus, number> & { exit_code: number };

export function summaryText(summary: Summary, dryRun: boolean): string {
  const order: FileStatus[] = dryRun
    ? ['would_upload', 'duplicate']
    : ['uploaded', 'duplicate', 'failed', 'unauthorized', 'not_sent'];
  const words: Record<FileStatus, string> = {
    uploaded: 'uploaded',
    duplicate: 'duplicates (uploaded once)',
    failed: 'failed',
    unauthorized: 'refused',
    not_sent: 'not sent',
    would_upload: 'would be uploaded (dry run: nothing sent)',
  };
  return order
    .filter((s) => summary[s] > 0 || s === order[0])
    .map((s) => `${summary[s]} ${words[s]}`)
    .join(', ');
}
