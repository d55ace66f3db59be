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
  logger: Logger;
  metrics: Metrics;
}

/** The check's outcome as the executor sees it: JSON bytes of the checked result, or the failure. */
export type WorkerCheck =
  | { ok: true; json: Buffer }
  | { ok: false; reason: 'invalid_json' | 'invalid_output' | 'unknown_tool'; issues?: unknown[] };

/** What the executor needs of the pool (a test may give it another). */
export interface AnswerChecker {
  readonly fromBytes: number;
  /** True once a worker is up that knows this tool; the executor checks inline otherwise. */
  serves(tool: string): boolean;
  /** Rejects only when the worker died on the job (out of memory, killed). */
  check(tool: string, bytes: Uint8Array): Promise<WorkerCheck>;
}

interface Pending {
  resolve(check: WorkerCheck): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker | undefined;
  ready: boolean;
  pending: Map<number, Pending>;
  failures: number;
}

const RESTART_BASE_MS = 250;
const RESTART_CAP_MS = 30_000;

/**
 * Worker threads that parse, check and serialize large backend answers, so that the gateway's event
 * loop only moves their bytes (docs/decisions.md, "Answer workers"): checked on the loop, one
 * tenant's 1.6 MB answers cost it ~50-90 ms each and held every other tenant's small calls behind
 * them. The threads run at a lower priority than the loop. A worker that dies fails only the
 * answers it held and is started again, with a growing delay if it keeps dying.
 */
export class AnswerWorkers implements AnswerChecker {
  readonly fromBytes: number;
  readonly #options: AnswerWorkersOptions;
  readonly #slots: Slot[];
  readonly #tools = new Set<string>();
  #nextId = 1;
  #held = 0;
  #closed = false;
  readonly #checks;
  readonly #inFlight;

  constructor(options: AnswerWorkersOptions) {
    this.#options = options;
    this.fromBytes = options.fromBytes;
    this.#checks = options.metrics.counter(
      'answer_worker_checks_total',
      'Large answers checked in a worker',
      ['outcome'],
    );
    this.#inFlight = options.metrics.gauge(
      'answer_worker_in_flight',
      'Answers in the answer workers now',
      [],
    );
    this.#slots = Array.from({ length: Math.max(1, Math.floor(options.workers)) }, () => ({
      worker: undefined,
      ready: false,
      pending: new Map(),
      failures: 0,
    }));
    for (const slot of this.#slots) this.#start(slot);
  }

  serves(tool: string): boolean {
    return this.#tools.has(tool) && this.#slots.some((s) => s.ready);
  }

  check(tool: string, bytes: Uint8Array): Promise<WorkerCheck> {
    const slot = this.#leastBusy();
    if (!slot?.worker) return Promise.reject(new Error('no answer worker is running'));
    const worker = slot.worker;
    const id = this.#nextId++;
    // Transferred, not copied; a view into a larger buffer is copied first, so nothing else moves.
    const whole =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    return new Promise<WorkerCheck>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      this.#inFlight.set({}, ++this.#held);
      worker.postMessage({ id, tool, bytes: whole } satisfies AnswerJob, [whole.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.map((s) => s.worker?.terminate()));
  }

  #leastBusy(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.#slots) {
      if (slot.ready && (!best || slot.pending.size < best.pending.size)) best = slot;
    }
    return best;
  }

  #start(slot: Slot): void {
    const { module, niceness, maxHeapMb, logger } = this.#options;
    const data: AnswerWorkerData = { niceness };
    const options = { workerData: data, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } };
    const worker = module.pathname.endsWith('.ts')
      ? new Worker(tsxBootstrap(module), { ...options, eval: true })
      : new Worker(module, options);
    slot.worker = worker;
    // Never what keeps the process alive: the app closes the pool, or exits with it.
    worker.unref();
    worker.on('message', (message: AnswerReply | WorkerReady) => {
      if ('ready' in message) {
        slot.ready = true;
        slot.failures = 0;
        for (const name of message.tools) this.#tools.add(name);
        return;
      }
      const pending = slot.pending.get(message.id);
      if (!pending) return;
      slot.pending.delete(message.id);
      this.#inFlight.set({}, --this.#held);
      this.#checks.inc({ outcome: message.ok ? 'ok' : message.reason });
      pending.resolve(
        message.ok
          ? {
              ok: true,
              json: Buffer.from(message.json.buffer, message.json.byteOffset, message.json.byteLength),
            }
          : message,
      );
    });
    worker.on('error', (err) => logger.error({ err }, 'answer worker failed'));
    worker.on('exit', (code) => {
      slot.worker = undefined;
      slot.ready = false;
      for (const pending of slot.pending.values()) {
        this.#inFlight.set({}, --this.#held);
        this.#checks.inc({ outcome: 'worker_exit' });
        pending.reject(new Error(`answer worker exited with code ${code}`));
      }
      slot.pending.clear();
      if (this.#closed) return;
      const delay = Math.min(RESTART_CAP_MS, RESTART_BASE_MS * 2 ** slot.failures++);
      logger.warn({ code, restart_in_ms: delay }, 'answer worker exited; starting another');
      setTimeout(() => {
        if (!this.#closed) this.#start(slot);
      }, delay).unref();
    });
  }
}

/** Code for an eval worker that loads a TypeScript module through tsx (only from sources). */
function tsxBootstrap(module: URL): string {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href;
  return `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(module.href)}); });`;
}
