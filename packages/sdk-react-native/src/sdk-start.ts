import { newTraceId } from '@svc/sdk-core';
import type { MobileParts } from './sdk-parts';

const DEVICE_ID_KEY = 'svc.device_id';
/** Calls made before the SDK has read its storage wait at most this many; more are dropped. */
const MAX_EARLY_CALLS = 1_000;

/** The SDK's start (storage first) and the work a flush waits for. */
export interface SdkStart {
  /** Resolves once storage is read and the session started. Never rejects. */
  ready: Promise<void>;
  /** Runs `fn` now if started, else once started (bounded: beyond, dropped and counted). */
  whenStarted(fn: () => void): void;
  /** Applies a session change now; its report is written in order. Resolves with every write so far. */
  inSessions(change: () => Promise<void>): Promise<void>;
  /** Asks recall for requests (when there is a recall endpoint); resolves with the jobs it made. */
  pollRecalls(): Promise<void>;
  /** What a flush waits for: the session reports written and the latest recall poll. */
  settled(): Promise<void>;
}

/**
 * Reads storage (the device id, the outbox, the log files, recall's jobs), then starts the session;
 * calls made meanwhile wait (bounded). The session starts with the app (`initAt`), not once storage
 * has answered: the records made meanwhile (the memory sample at launch) are of this session and
 * not before its start.
 */
export function startSdk(parts: MobileParts, initAt: number): SdkStart {
  const { platform, who, outbox, files, recall, sessions, reporter } = parts;
  // A session change takes effect when it happens: a record made after it (the memory sample
  // taken on return to the foreground) carries the session it leads to, whose start is not after
  // the record. Only writing its report waits for storage (Sessions and the outbox keep the
  // reports in order); a flush waits for those writes.
  let sessionWork: Promise<void> = Promise.resolve();
  const inSessions = (change: () => Promise<void>) => {
    const written = change().catch(reporter.storageFailed);
    sessionWork = Promise.all([sessionWork, written]).then(() => undefined);
    return sessionWork;
  };
  let started = false;
  const early: (() => void)[] = [];
  /** The latest recall poll (at start, on foreground): a flush waits for the jobs it makes. */
  let polling: Promise<void> = Promise.resolve();
  const pollRecalls = () => {
    if (recall) polling = recall.poll().catch(() => recall.run());
    return polling;
  };
  const ready = (async () => {
    try {
      if (!who.deviceId) {
        who.deviceId = (await platform.storage.getItem(DEVICE_ID_KEY)) ?? undefined;
        if (!who.deviceId) {
          who.deviceId = newTraceId();
          await platform.storage.setItem(DEVICE_ID_KEY, who.deviceId);
        }
      }
      await Promise.all([outbox.load(), files.load(), recall?.load()]);
      await inSessions(() => sessions.start(initAt));
    } catch (err) {
      reporter.storageFailed(err);
      who.deviceId ??= newTraceId();
    } finally {
      started = true;
      for (const fn of early.splice(0)) reporter.guard(fn)();
    }
    void outbox.drain();
    void pollRecalls();
  })();
  return {
    ready,
    whenStarted(fn) {
      if (started) return fn();
      if (early.length >= MAX_EARLY_CALLS) {
        reporter.counts.earlyDropped++;
        return;
      }
      early.push(fn);
    },
    inSessions,
    pollRecalls,
    async settled() {
      await sessionWork;
      await polling;
    },
  };
}
