import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Metrics } from '@svc/metrics';
import type { Logger } from '@svc/tool-kit';
import type { AnswerJob, AnswerReply, AnswerWorkerData, WorkerReady } from './answer-worker-runtime';

export interface AnswerWorkersOptions {
  /** The worker's module: it calls serveAnswerChecks with the registry's tools. A .ts module runs through tsx (dev, tests). */
  module: URL;
  /** Threads; each checks one answer at a time. */
  workers: number;
  /** Answers at least this many bytes long are checked in a worker; smaller ones inline. */
  fromBytes: number;
  /** Linux nice value of the worker threads: 0 leaves them at the process's. */
  niceness: number;
  /** Old-generation heap of each worker. */
  maxHeapMb: number;
  /** A worker with nothing to do for this long stops (default 30 s); the next answer starts one. */
  idleMs?: number;
  logger: Logger;
  metrics: Metrics;
}

/** The check's outcome as the executor sees it: JSON bytes of the checked result, or the failure. */
export type WorkerCheck =
  | { ok: true; json: Buffer }
  | { ok: false; reason: 'invalid_json' | 'invalid_output' | 'unknown_tool'; issues?: unknown[] };

/** No worker could be started (none running, the last ones failed to start): check inline. */
export class AnswerWorkersUnavailableError extends Error {
  constructor() {
    super('no answer worker is available');
  }
}

/** What the executor needs of the pool (a test may give it another). */
export interface AnswerChecker {
  readonly fromBytes: number;
  /** True once the workers are known to check this tool; the executor checks inline otherwise. */
  serves(tool: string): boolean;
  /**
   * Rejects with AnswerWorkersUnavailableError when no worker could take the answer (the executor
   * then checks it itself), and with any other error when the worker died on it.
   */
  check(tool: string, bytes: Uint8Array): Promise<WorkerCheck>;
}

interface Pending {
  resolve(check: WorkerCheck): void;
  reject(err: Error): void;
}

interface Job {
  id: number;
  tool: string;
  bytes: Uint8Array;
  pending: Pending;
}

interface Slot {
  worker: Worker | undefined;
  ready: boolean;
  /** Jobs sent to this worker and not answered yet. */
  pending: Map<number, Pending>;
  idleTimer: NodeJS.Timeout | undefined;
  /** The pool stopped it for being idle: its exit is no failure. */
  retiring: boolean;
}

const RESTART_BASE_MS = 250;
const RESTART_CAP_MS = 30_000;
const DEFAULT_IDLE_MS = 30_000;

/**
 * Worker threads that parse, check and serialize large backend answers, so that the gateway's event
 * loop only moves their bytes (docs/decisions.md, "Answer workers"): checked on the loop, one
 * tenant's 1.6 MB answers cost it ~50-90 ms each and held every other tenant's small calls behind
 * them. The threads run at a lower priority than the loop. They start when answers need them (the
 * first large answer, checked inline, starts one and teaches the pool its tools) and stop after
 * `idleMs` without work, so a gateway that only ever sees small answers holds no thread's memory. A
 * worker that dies fails only the answers it held; one that will not start is retried with a
 * growing delay, and its answers are checked inline meanwhile.
 */
export class AnswerWorkers implements AnswerChecker {
  readonly fromBytes: number;
  readonly #options: AnswerWorkersOptions;
  readonly #idleMs: number;
  readonly #slots: Slot[];
  readonly #tools = new Set<string>();
  #queue: Job[] = [];
  #nextId = 1;
  #failures = 0;
  #retryAt = 0;
  #closed = false;
  readonly #checks;
  readonly #inFlight;
  readonly #threads;

  constructor(options: AnswerWorkersOptions) {
    this.#options = options;
    this.fromBytes = options.fromBytes;
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#checks = options.metrics.counter(
      'answer_worker_checks_total',
      'Large answers checked in a worker',
      ['outcome'],
    );
    this.#inFlight = options.metrics.holding(
      'answer_worker_in_flight',
      'Answers in the answer workers now',
      [],
    );
    this.#threads = options.metrics.gauge('answer_worker_threads', 'Answer worker threads running', []);
    this.#slots = Array.from({ length: Math.max(1, Math.floor(options.workers)) }, () => ({
      worker: undefined,
      ready: false,
      pending: new Map(),
      idleTimer: undefined,
      retiring: false,
    }));
  }

  /** Worker threads running now (started or starting). */
  get threads(): number {
    return this.#slots.filter((s) => s.worker).length;
  }

  serves(tool: string): boolean {
    if (this.#closed) return false;
    if (this.#tools.size === 0) {
      // Which tools the workers check is known once one has started: this answer goes inline.
      if (!this.#slots.some((s) => s.worker) && Date.now() >= this.#retryAt) this.#start(this.#slots[0]!);
      return false;
    }
    return this.#tools.has(tool) && (this.#slots.some((s) => s.ready) || Date.now() >= this.#retryAt);
  }

  check(tool: string, bytes: Uint8Array): Promise<WorkerCheck> {
    if (this.#closed) return Promise.reject(new AnswerWorkersUnavailableError());
    // Transferred, not copied; a view into a larger buffer is copied first, so nothing else moves.
    const whole =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    return new Promise<WorkerCheck>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, tool, bytes: whole, pending: { resolve, reject } });
      this.#dispatch();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#dispatch();
    await Promise.all(this.#slots.map((s) => s.worker?.terminate()));
  }

  /** Hands queued answers to workers, then reports what is held: every change ends here. */
  #dispatch(): void {
    this.#handOut();
    this.#reportInFlight();
  }

  /** Hands queued answers to idle workers, starting one when every running worker is busy. */
  #handOut(): void {
    while (this.#queue.length > 0) {
      const ready = this.#slots.filter((s) => s.ready);
      let slot = ready.find((s) => s.pending.size === 0);
      if (!slot) {
        const stopped = this.#slots.find((s) => !s.worker);
        if (stopped && !this.#closed && Date.now() >= this.#retryAt) this.#start(stopped);
        if (ready.length === 0) {
          // Nothing ready: wait for a worker that is starting, or give the answers back.
          if (!this.#closed && this.#slots.some((s) => s.worker)) return;
          for (const job of this.#queue.splice(0)) this.#settle(job.pending, 'unavailable');
          return;
        }
        slot = ready.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      }
      const job = this.#queue.shift()!;
      clearTimeout(slot.idleTimer);
      slot.pending.set(job.id, job.pending);
      slot.worker!.postMessage({ id: job.id, tool: job.tool, bytes: job.bytes } satisfies AnswerJob, [
        job.bytes.buffer as ArrayBuffer,
      ]);
    }
  }

  /** Answers queued or in a worker now. */
  #reportInFlight(): void {
    let held = this.#queue.length;
    for (const slot of this.#slots) held += slot.pending.size;
    this.#inFlight.set({}, held);
  }

  #settle(pending: Pending, outcome: WorkerCheck | 'unavailable' | Error): void {
    if (outcome === 'unavailable') {
      this.#checks.inc({ outcome: 'unavailable' });
      pending.reject(new AnswerWorkersUnavailableError());
    } else if (outcome instanceof Error) {
      this.#checks.inc({ outcome: 'worker_exit' });
      pending.reject(outcome);
    } else {
      this.#checks.inc({ outcome: outcome.ok ? 'ok' : outcome.reason });
      pending.resolve(outcome);
    }
  }

  /** Stops the worker once it has had nothing to do for idleMs. */
  #armIdle(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (slot.pending.size > 0 || !slot.worker) return;
      slot.retiring = true;
      void slot.worker.terminate();
    }, this.#idleMs);
    slot.idleTimer.unref();
  }

  #start(slot: Slot): void {
    const { module, niceness, maxHeapMb, logger } = this.#options;
    const data: AnswerWorkerData = { niceness };
    const options = { workerData: data, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } };
    const worker = module.pathname.endsWith('.ts')
      ? new Worker(tsxBootstrap(module), { ...options, eval: true })
      : new Worker(module, options);
    slot.worker = worker;
    slot.ready = false;
    slot.retiring = false;
    this.#threads.set({}, this.threads);
    // Never what keeps the process alive: the app closes the pool, or exits with it.
    worker.unref();
    worker.on('message', (message: AnswerReply | WorkerReady) => {
      if ('ready' in message) {
        slot.ready = true;
        this.#failures = 0;
        for (const name of message.tools) this.#tools.add(name);
        this.#armIdle(slot);
        this.#dispatch();
        return;
      }
      const pending = slot.pending.get(message.id);
      if (!pending) return;
      slot.pending.delete(message.id);
      this.#settle(
        pending,
        message.ok
          ? {
              ok: true,
              json: Buffer.from(message.json.buffer, message.json.byteOffset, message.json.byteLength),
            }
          : message,
      );
      if (slot.pending.size === 0) this.#armIdle(slot);
      this.#dispatch();
    });
    worker.on('error', (err) => logger.error({ err }, 'answer worker failed'));
    worker.on('exit', (code) => {
      const retired = slot.retiring;
      clearTimeout(slot.idleTimer);
      slot.worker = undefined;
      slot.ready = false;
      slot.retiring = false;
      this.#threads.set({}, this.threads);
      for (const pending of slot.pending.values()) {
        this.#settle(pending, new Error(`answer worker exited with code ${code}`));
      }
      slot.pending.clear();
      if (!retired && !this.#closed) {
        const delay = Math.min(RESTART_CAP_MS, RESTART_BASE_MS * 2 ** this.#failures++);
        this.#retryAt = Date.now() + delay;
        logger.warn({ code, retry_in_ms: delay }, 'answer worker exited');
      }
      this.#dispatch();
    });
  }
}

/** Code for an eval worker that loads a TypeScript module through tsx (only from sources). */
function tsxBootstrap(module: URL): string {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href;
  return `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(module.href)}); });`;
}
