import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { DebugFile } from './debug-file';
import type { UploadTarget } from './dsn';
import { signedHeaders } from './sign';

// Sending the files: a pool of `concurrency` uploads at a time. Each file is compressed once
// (gzip; the core stores it inflated) and signed anew on every attempt (the signature carries its
// time). An attempt that may succeed when tried again (network error, timeout, 408, 429, 5xx) is
// retried with exponential backoff, or after the server's Retry-After; a re-upload of the same
// file under the same name replaces it, so a retry after a lost answer stores nothing twice.
// A refused key (401/403) stops the run: every further file would be refused too.

export interface UploadOptions {
  target: UploadTarget;
  release: string | undefined;
  concurrency: number;
  /** Further attempts after the first. */
  retries: number;
  userAgent: string;
  /** First backoff in ms; doubled per attempt, with jitter, at most MAX_BACKOFF_MS. */
  backoffMs?: number;
  /** One attempt's ceiling. */
  attemptTimeoutMs?: number;
  onResult(result: UploadResult): void;
}

export type UploadResult =
  | { status: 'uploaded'; file: DebugFile; attempts: number; fileId: string | null }
  | { status: 'failed'; file: DebugFile; attempts: number; httpStatus: number | null; message: string }
  | { status: 'unauthorized'; file: DebugFile; attempts: number; httpStatus: number; message: string }
  | { status: 'not_sent'; file: DebugFile; attempts: 0; message: string };

export const DEFAULT_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 30_000;
/** A Retry-After beyond this is waited for this long only: a CI job should not hang for an hour. */
export const MAX_RETRY_AFTER_MS = 60_000;
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 5 * 60_000;

const gzipAsync = promisify(gzip);

export async function uploadAll(
  files: readonly DebugFile[],
  options: UploadOptions,
): Promise<UploadResult[]> {
  const results: UploadResult[] = new Array(files.length);
  let next = 0;
  let refused: string | null = null;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      const file = files[i]!;
      const result: UploadResult =
        refused === null
          ? await uploadOne(file, options)
          : { status: 'not_sent', file, attempts: 0, message: `not sent: ${refused}` };
      if (result.status === 'unauthorized') refused ??= 'the ingest key was refused';
      results[i] = result;
      options.onResult(result);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, files.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

export function uploadUrl(target: UploadTarget, file: DebugFile, release: string | undefined): string {
  const query = new URLSearchParams({ kind: file.kind, platform: file.platform, name: file.name });
  if (release !== undefined) query.set('release', release);
  if (file.debugId) query.set('debug_id', file.debugId);
  return `${target.endpoint}/ingest/v1/debug-files?${query}`;
}

type Attempt =
  | { done: true; result: UploadResult }
  | { done: false; message: string; httpStatus: number | null; retryAfterMs: number | null };

async function uploadOne(file: DebugFile, options: UploadOptions): Promise<UploadResult> {
  const body = await gzipAsync(file.bytes);
  const url = uploadUrl(options.target, file, options.release);
  const base = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(file, url, body, attempt, options);
    if (outcome.done) return outcome.result;
    if (attempt > options.retries)
      return {
        status: 'failed',
        file,
        attempts: attempt,
        httpStatus: outcome.httpStatus,
        message: `${outcome.message} (gave up after ${attempt} attempt${attempt === 1 ? '' : 's'})`,
      };
    const backoff = Math.min(MAX_BACKOFF_MS, base * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
    await sleep(outcome.retryAfterMs ?? backoff);
  }
}

async function attemptOnce(
  file: DebugFile,
  url: string,
  body: Buffer,
  attempt: number,
  options: UploadOptions,
): Promise<Attempt> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        ...signedHeaders(options.target, body, Date.now()),
        'content-type': 'application/octet-stream',
        'content-encoding': 'gzip',
        'user-agent': options.userAgent,
      },
      // A Buffer is a Uint8Array over an ArrayBuffer: typed so for programs that also load the DOM
      // library (apps/sdk-e2e runs the CLI in process), whose fetch refuses a SharedArrayBuffer.
      body: body as Uint8Array<ArrayBuffer>,
      signal: AbortSignal.timeout(options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS),
    });
    text = await res.text();
  } catch (err) {
    return { done: false, message: networkMessage(err), httpStatus: null, retryAfterMs: null };
  }
  if (res.ok) {
    const fileId = parseJson(text)?.file_id;
    return {
      done: true,
      result: {
        status: 'uploaded',
        file,
        attempts: attempt,
        fileId: typeof fileId === 'string' ? fileId : null,
      },
    };
  }
  const message = `${res.status} ${errorText(text, res.statusText)}`;
  if (res.status === 401 || res.status === 403) {
    const hint =
      " (check the DSN: key id, secret and project; and this machine's clock: the core refuses a signature more than 300 s off)";
    return {
      done: true,
      result: {
        status: 'unauthorized',
        file,
        attempts: attempt,
        httpStatus: res.status,
        message: message + hint,
      },
    };
  }
  if (res.status === 408 || res.status === 429 || res.status >= 500)
    return {
      done: false,
      message,
      httpStatus: res.status,
      retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
    };
  return {
    done: true,
    result: { status: 'failed', file, attempts: attempt, httpStatus: res.status, message },
  };
}

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : Date.parse(value) - nowMs;
  if (!Number.isFinite(seconds)) return null;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, seconds));
}

/** The core's `{error, message, details: [{parameter, reason}]}`, as one line. */
export function errorText(body: string, fallback: string): string {
  const json = parseJson(body);
  if (!json) return body.trim().slice(0, 500) || fallback;
  const parts = [
    typeof json.message === 'string' ? json.message : typeof json.error === 'string' ? json.error : fallback,
  ];
  if (Array.isArray(json.details)) {
    const details = json.details
      .map((d: { parameter?: unknown; reason?: unknown }) =>
        typeof d?.reason === 'string'
          ? typeof d.parameter === 'string'
            ? `${d.parameter}: ${d.reason}`
            : d.reason
          : null,
      )
      .filter((d: string | null): d is string => d !== null);
    if (details.length > 0) parts.push(`(${details.join('; ')})`);
  }
  return parts.join(' ');
}

function networkMessage(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'the upload timed out';
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `network error: ${e?.message ?? String(err)}${cause ? ` (${cause})` : ''}`;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON of unknown shape, read field by field
function parseJson(text: string): Record<string, any> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
