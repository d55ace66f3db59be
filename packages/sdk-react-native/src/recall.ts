import { concatBytes, fromBase64, utf8 } from './bytes';
import { DrainLoop } from './drain-loop';
import { dayOf, type LogFiles } from './log-files';
import type { Compression, KeyValueStorage, SdkCrypto } from './platform';
import type { SignedClient } from './signed-client';

// The device side of recall (docs/recall.md): recall requests polled from /device/v1/recalls, the
// day files gzip'd, encrypted with AES-256-GCM under the project's data key (/device/v1/key) and
// uploaded to /device/v1/files. Every upload is a job written to storage before it starts and
// removed once recall answered, so an app killed mid-upload uploads again on its next start.

const JOB_PREFIX = 'svc.job.';
/** Jobs kept at most; a new one beyond is dropped (and counted). */
const MAX_JOBS = 20;
/** Attempts per job, over retries and restarts; then it is dropped (and counted). */
const MAX_ATTEMPTS = 30;
const RETRY_BASE_MS = 5_000;
const RETRY_MAX_MS = 10 * 60_000;
const UPLOAD_TIMEOUT_MS = 120_000;

/**
 * Every character but A-Z a-z 0-9 - _ . ~ percent-encoded: the query is signed as written here,
 * and no URL parser on the way (a fetch polyfill, the platform's networking) re-encodes a
 * character of it (a URL parser encodes ' in a query, which encodeURIComponent leaves).
 */
const strictlyEncoded = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A query string from defined values (no URLSearchParams polyfill to trust). */
function queryOf(params: Record<string, string | undefined>): string {
  return Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}=${strictlyEncoded(value)}`)
    .join('&');
}

interface UploadJob {
  key: string;
  /** The recall request the upload answers; absent for a crash's own upload. */
  request_id?: string;
  /** The first upload of a request: the one that marks it answered. */
  fulfils?: boolean;
  /** Set (in storage) before the upload is sent: it may have arrived although no answer came. */
  started?: boolean;
  day: string;
  seqs: number[];
  file_name: string;
  user_id?: string;
  session_id?: string;
  attempts: number;
}

export interface RecallEvents {
  uploaded(fileId: string, job: { request_id?: string; file_name: string }): void;
  /** An upload recall refused (4xx) or that ran out of attempts: dropped. */
  dropped(reason: string, status?: number): void;
}

export interface RecallDeps {
  storage: KeyValueStorage;
  files: LogFiles;
  client: SignedClient;
  /** The recall service's base URL. */
  endpoint: string;
  crypto: SdkCrypto;
  compression: Compression;
  deviceId: () => string;
  userId: () => string | undefined;
  sessionId: () => string | undefined;
  events: RecallEvents;
}

/**
 * Polls for recall requests and uploads what they ask for: every kept day's file, each its own
 * upload naming the request (the first answers it). Jobs run one at a time, in order.
 */
export class RecallUploader {
  private jobs: UploadJob[] = [];
  private counter = 0;
  private polling: Promise<void> = Promise.resolve();
  private readonly loop = new DrainLoop(() => this.runAll(), { baseMs: RETRY_BASE_MS, maxMs: RETRY_MAX_MS });
  uploaded = 0;
  dropped = 0;

  constructor(private readonly deps: RecallDeps) {}

  get pending(): number {
    return this.jobs.length;
  }

  async load(): Promise<void> {
    const keys = (await this.deps.storage.getAllKeys()).filter((k) => k.startsWith(JOB_PREFIX)).sort();
    for (const key of keys) {
      const raw = await this.deps.storage.getItem(key);
      try {
        const job = { ...(JSON.parse(raw ?? '') as UploadJob), key };
        this.jobs.push(job);
        this.deps.files.protect(key, job.seqs);
      } catch {
        await this.deps.storage.removeItem(key);
      }
    }
  }

  /**
   * Asks recall for requests waiting for this device (or its user); uploads what they ask for.
   * Polls run one after the other: two at once (the start's and checkRecalls()) would both see a
   * request without a job and each upload its files.
   */
  poll(): Promise<void> {
    const next = this.polling.then(() => this.pollOnce());
    this.polling = next.catch(() => undefined);
    return next;
  }

  private async pollOnce(): Promise<void> {
    const pending = await this.pendingRequests(this.deps.userId());
    const known = new Set(this.jobs.map((j) => j.request_id));
    const fresh = pending.filter((id) => !known.has(id));
    if (fresh.length > 0) {
      await this.deps.files.flush();
      for (const requestId of fresh) {
        const days = this.deps.files.days();
        // A device without lines still answers: with an empty file of today.
        const wanted = days.length > 0 ? days : [dayOf(Date.now())];
        for (const [index, day] of wanted.entries())
          await this.add({
            request_id: requestId,
            fulfils: index === 0,
            day,
            file_name: `app-${day}.ndjson`,
          });
      }
    }
    await this.run();
  }

  /** After a crash: today's file goes up on its own, naming the crash's session. */
  async afterCrash(eventId: string, now: number, sessionId: string | undefined): Promise<void> {
    await this.deps.files.flush();
    const day = dayOf(now);
    await this.add({
      day,
      file_name: `crash-${day}-${eventId}.ndjson`,
      ...(sessionId ? { session_id: sessionId } : {}),
    });
  }

  /** Runs the jobs waiting, one at a time; resolves when all are done or one must wait for a retry. */
  run(): Promise<void> {
    return this.loop.run();
  }

  stop(): void {
    this.loop.stop();
  }

  private async add(job: Omit<UploadJob, 'key' | 'seqs' | 'attempts' | 'user_id'>): Promise<void> {
    if (this.jobs.length >= MAX_JOBS) {
      this.dropped++;
      this.deps.events.dropped('too_many_uploads');
      return;
    }
    const key = `${JOB_PREFIX}${String(Date.now()).padStart(13, '0')}.${String(this.counter++).padStart(6, '0')}`;
    const userId = this.deps.userId();
    const full: UploadJob = {
      ...job,
      key,
      seqs: this.deps.files.seqsOf(job.day),
      attempts: 0,
      ...(userId ? { user_id: userId } : {}),
      ...(job.session_id || !this.deps.sessionId() ? {} : { session_id: this.deps.sessionId()! }),
    };
    this.deps.files.protect(key, full.seqs);
    await this.save(full);
    this.jobs.push(full);
  }

  private async save(job: UploadJob): Promise<void> {
    const { key, ...stored } = job;
    await this.deps.storage.setItem(key, JSON.stringify(stored));
  }

  private async finish(job: UploadJob): Promise<void> {
    this.jobs = this.jobs.filter((j) => j !== job);
    this.deps.files.release(job.key);
    await this.deps.storage.removeItem(job.key);
  }

  /** The requests recall lists for this device, or for the user named (none: the device's only). */
  private async pendingRequests(userId: string | undefined): Promise<string[]> {
    const query = queryOf({ device_id: this.deps.deviceId(), user_id: userId });
    const answer = await this.deps.client.request({
      method: 'GET',
      ...this.at(`/device/v1/recalls?${query}`),
    });
    const text = await answer.text();
    if (answer.status !== 200) throw new Error(`recall polling answered ${answer.status}`);
    return (JSON.parse(text) as { items: { request_id: string }[] }).items.map((i) => i.request_id);
  }

  private async dataKey(): Promise<{ version: number; key: Uint8Array }> {
    const answer = await this.deps.client.request({ method: 'GET', ...this.at('/device/v1/key') });
    const text = await answer.text();
    if (answer.status !== 200) throw new Error(`the data key answered ${answer.status}`);
    const { key, key_version } = JSON.parse(text) as { key: string; key_version: number };
    return { version: key_version, key: fromBase64(key) };
  }

  /** A request to recall: its URL, and the path and query its signature covers. */
  private at(target: string): { url: string; target: string } {
    return { url: `${this.deps.endpoint}${target}`, target };
  }

  /** The file as uploaded: 12-byte IV, then AES-256-GCM over gzip of the NDJSON, then the tag. */
  private async encryptedFile(job: UploadJob, key: Uint8Array): Promise<Uint8Array> {
    const text = await this.deps.files.read(job.day, job.seqs);
    const gzipped = await this.deps.compression.gzip(utf8(text));
    const iv = this.deps.crypto.randomBytes(12);
    return concatBytes(iv, await this.deps.crypto.aes256GcmEncrypt(key, iv, gzipped));
  }

  /** Whether every job is done (uploaded or dropped); false when one must wait for a retry. */
  private async runAll(): Promise<boolean> {
    /** Requests recall lists, by the user asked for ('' for none). */
    const pendingFor = new Map<string, Set<string>>();
    let dataKey: { version: number; key: Uint8Array } | undefined;
    while (this.jobs.length > 0 && !this.loop.stopped) {
      const job = this.jobs[0]!;
      // The first upload of a request may have arrived before the app died: recall then no longer
      // lists the request, and uploading again would store the file twice. It is asked as the job
      // was made, under the user stored in it: a request for a user is listed only to a poll naming
      // that user, and the app may start again before anyone signs in (or as someone else).
      if (job.request_id && job.fulfils && job.started) {
        const asked = job.user_id ?? '';
        let pending = pendingFor.get(asked);
        if (!pending) {
          pending = new Set(await this.pendingRequests(job.user_id));
          pendingFor.set(asked, pending);
        }
        if (!pending.has(job.request_id)) {
          await this.finish(job);
          continue;
        }
      }
      if (job.attempts >= MAX_ATTEMPTS) {
        await this.finish(job);
        this.dropped++;
        this.deps.events.dropped('gave_up');
        continue;
      }
      job.attempts++;
      job.started = true;
      await this.save(job);
      dataKey ??= await this.dataKey();
      const body = await this.encryptedFile(job, dataKey.key);
      const query = queryOf({
        device_id: this.deps.deviceId(),
        file_name: job.file_name,
        date: job.day,
        key_version: String(dataKey.version),
        user_id: job.user_id,
        session_id: job.session_id,
        request_id: job.request_id,
      });
      let status: number;
      let text: string;
      try {
        const answer = await this.deps.client.request({
          method: 'POST',
          ...this.at(`/device/v1/files?${query}`),
          body,
          headers: { 'content-type': 'application/octet-stream' },
          timeoutMs: UPLOAD_TIMEOUT_MS,
        });
        status = answer.status;
        text = await answer.text();
      } catch {
        return false;
      }
      if (status === 201 || status === 200) {
        await this.finish(job);
        this.uploaded++;
        const fileId = (JSON.parse(text) as { file_id?: string }).file_id ?? '';
        this.deps.events.uploaded(fileId, job);
        continue;
      }
      // A key rotated since it was fetched: fetch it again on the next attempt.
      if (status === 400 && text.includes('key_version')) return false;
      if (status === 408 || status === 429 || status >= 500) return false;
      await this.finish(job);
      this.dropped++;
      this.deps.events.dropped('rejected', status);
    }
    return true;
  }
}
