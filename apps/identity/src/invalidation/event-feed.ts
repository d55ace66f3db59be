import type { Postgres } from '@svc/postgres';
import type { Response } from 'express';
import { eventsAfter, headSeq, type InvalidationEvent } from '../store/invalidations';

export interface Stream {
  id: string;
  res: Response;
  /** False until the stream's hello is written: nothing is sent to it before. */
  ready: boolean;
}

export const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The invalidation log read in order onto the local streams. Reading the log and writing to the
 * streams happens one at a time, so every stream sees the events in seq order, each once, and a
 * heartbeat never overtakes an event it covers.
 */
export interface EventFeed {
  readonly streams: Map<string, Stream>;
  /** Sends every event recorded since the last read. */
  scan(): Promise<void>;
  /** Reads the log up to its head, then runs `fn` with the head's seq before anything else is sent. */
  atHead<T>(fn: (seq: number) => Promise<T> | T): Promise<T>;
  /** Writes one message to every ready stream. */
  send(event: string, data: InvalidationEvent | object): void;
}

export function createEventFeed(db: Postgres): EventFeed {
  const streams = new Map<string, Stream>();
  let latest: number | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = chain.then(fn, fn);
    chain = next.catch(() => {});
    return next;
  }

  function send(event: string, data: InvalidationEvent | object) {
    const text = sse(event, data);
    for (const s of streams.values()) if (s.ready) s.res.write(text);
  }

  async function scanLocked(): Promise<number> {
    latest ??= await headSeq(db);
    for (;;) {
      const events = await eventsAfter(db, latest);
      if (events.length === 0) return latest;
      for (const event of events) send('invalidate', event);
      latest = events[events.length - 1]!.seq;
    }
  }

  return {
    streams,
    send,
    scan: () => exclusive(async () => void (await scanLocked())),
    atHead: (fn) => exclusive(async () => fn(await scanLocked())),
  };
}
