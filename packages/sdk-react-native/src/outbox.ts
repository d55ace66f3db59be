import type { PreparedBatch } from '@svc/sdk-core';
import { DrainLoop } from './drain-loop';
import type { KeyValueStorage } from './platform';
import type { CrashRecord, SessionRecord } from './records';
import type { SignedClient } from './signed-client';

const PREFIX = 'svc.outbox.';
/** Items waiting at most; beyond, the oldest session report goes first (a later one supersedes it). */
export const MAX_OUTBOX_ITEMS = 200;
const RETRY_BASE_MS = 2_000;
const RETRY_MAX_MS = 5 * 60_000;

interface StoredItem {
  /** The batch exactly as it is sent: a retry is the same bytes under the same Idempotency-Key. */
  body: string;
  idempotency_key: string;
  /** Items of one tag supersede each other: a session's latest report is the one that counts. */
  tag?: string;
}

export interface OutboxEvents {
  /** A batch the core refused (4xx): it cannot succeed later, so it is dropped. */
  rejected(status: number): void;
  dropped(): void;
}

/**
 * What must not be lost with the process: crash reports, session reports, and the telemetry a fatal
 * crash left undelivered in the exporter. Each batch is written
 * to storage before it is sent and removed once the core answered 2xx (or refused it for good), so
 * a report the app died before sending goes out on the next start. Batches go one at a time in the
 * order they were written (a session's end after its start), each with its own Idempotency-Key, so
 * a retry after a lost answer is stored once.
 */
export class Outbox {
  private keys: string[] = [];
  private tags = new Map<string, string>();
  private counter = 0;
  private inFlight: string | undefined;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly loop = new DrainLoop(
    async () => {
      await this.writes;
      return this.sendAll();
    },
    { baseMs: RETRY_BASE_MS, maxMs: RETRY_MAX_MS },
  );
  dropped = 0;

  constructor(
    private readonly storage: KeyValueStorage,
    private readonly client: SignedClient,
    private readonly newId: () => string,
    private readonly events: OutboxEvents,
  ) {}

  async load(): Promise<void> {
    const keys = (await this.storage.getAllKeys()).filter((k) => k.startsWith(PREFIX)).sort();
    this.keys = keys;
  }

  get pending(): number {
    return this.keys.length;
  }

  /** Writes the batch to storage (resolves once it is there); `drain` sends it. */
  enqueue(records: { crashes?: CrashRecord[]; sessions?: SessionRecord[] }, tag?: string): Promise<void> {
    const item: StoredItem = { body: JSON.stringify(records), idempotency_key: this.newId() };
    if (tag) item.tag = tag;
    return this.write(item);
  }

  /**
   * Keeps a batch the exporter had not delivered (the app is about to die): its body and its
   * Idempotency-Key as the exporter's tries sent them, so a try that was stored although its answer
   * never came is answered as a repeat when this copy goes, and stored once.
   */
  keep(batch: PreparedBatch): Promise<void> {
    return this.write({ body: batch.body, idempotency_key: batch.idempotencyKey });
  }

  private write(item: StoredItem): Promise<void> {
    const key = `${PREFIX}${String(Date.now()).padStart(13, '0')}.${String(this.counter++).padStart(6, '0')}`;
    const tag = item.tag;
    const write = this.writes.then(async () => {
      await this.storage.setItem(key, JSON.stringify(item));
      this.keys.push(key);
      if (tag) {
        const superseded = this.tags.get(tag);
        this.tags.set(tag, key);
        if (superseded && superseded !== this.inFlight) await this.remove(superseded);
      }
      while (this.keys.length > MAX_OUTBOX_ITEMS) {
        const tagged = new Set(this.tags.values());
        const victim =
          this.keys.find((k) => tagged.has(k) && k !== this.inFlight) ??
          this.keys.find((k) => k !== this.inFlight);
        if (!victim) break;
        await this.remove(victim);
        this.dropped++;
        this.events.dropped();
      }
    });
    this.writes = write.catch(() => undefined);
    return write;
  }

  /** Sends what is waiting, in order; resolves when it is all out or a failure stopped it. Never rejects. */
  drain(): Promise<void> {
    return this.loop.run();
  }

  /** No more sending or retries (the SDK shut down); what waits stays in storage. */
  stop(): void {
    this.loop.stop();
  }

  /** Whether everything waiting was delivered (or dropped for good). */
  private async sendAll(): Promise<boolean> {
    while (this.keys.length > 0 && !this.loop.stopped) {
      const key = this.keys[0]!;
      const raw = await this.storage.getItem(key);
      if (raw === null) {
        this.keys.shift();
        continue;
      }
      let item: StoredItem;
      try {
        item = JSON.parse(raw) as StoredItem;
      } catch {
        // Half a write from a process that died: nothing to send.
        await this.remove(key);
        continue;
      }
      this.inFlight = key;
      let status: number;
      try {
        const answer = await this.client.request({
          method: 'POST',
          url: `${this.client.target.endpoint}/ingest/v1/batch`,
          body: item.body,
          headers: { 'content-type': 'application/json', 'idempotency-key': item.idempotency_key },
        });
        status = answer.status;
        await answer.text().catch(() => undefined);
      } catch {
        return false;
      } finally {
        this.inFlight = undefined;
      }
      // 409: the same key is still being written by an earlier try; 408, 429, 5xx: try later.
      if (status === 408 || status === 409 || status === 429 || status >= 500) return false;
      if (status >= 300) this.events.rejected(status);
      await this.remove(key);
    }
    return true;
  }

  private async remove(key: string): Promise<void> {
    this.keys = this.keys.filter((k) => k !== key);
    for (const [tag, k] of this.tags) if (k === key) this.tags.delete(tag);
    await this.storage.removeItem(key);
  }
}
