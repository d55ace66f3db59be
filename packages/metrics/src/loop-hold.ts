import { closeSync, openSync, readSync } from 'node:fs';
import type { Metrics } from './metrics';

// How long the event loop was held: the CPU time the main thread spent between two turns of a
// short timer. Wall-clock lag (monitorEventLoopDelay) also counts the time the process waited for
// a core, which on a busy machine is most of it; the main thread's own run time counts only work
// that kept every other request waiting. Linux reports a thread's run time in nanoseconds in
// /proc/thread-self/schedstat (read with pread on an fd kept open: ~1.5 us); elsewhere the monitor
// falls back to wall-clock lag and says so.

export interface LoopHold {
  /** Main-thread CPU time between two timer turns, in ms (wall-clock lag where CPU is unknown). */
  holdMs: number;
  /** Wall-clock time between the two turns, in ms. */
  wallMs: number;
  /** When the hold ended (Date.now()). */
  at: number;
}

export interface LoopHoldMonitorOptions {
  /** Timer period; default 10 ms. */
  intervalMs?: number;
  /** Holds at least this long are reported through `onHold` and counted; default 50 ms. */
  reportOverMs?: number;
  /** Histogram `event_loop_hold_seconds`, gauge `event_loop_hold_max_seconds`, counter of long holds. */
  metrics?: Metrics;
  /** Told of every hold of `reportOverMs` or more. */
  onHold?: (hold: LoopHold) => void;
  /** Logs every hold of `reportOverMs` or more as a warning (pino's signature). */
  logger?: { warn(fields: Record<string, unknown>, message: string): void };
}

export interface LoopHoldMonitor {
  /** 'cpu': main-thread run time; 'wall': lag, where the platform does not report thread CPU. */
  readonly measure: 'cpu' | 'wall';
  /** The longest hold seen since the start or the last reset, in ms. */
  maxHoldMs(): number;
  /** Holds of `reportOverMs` or more since the start or the last reset, oldest first (last 100). */
  longHolds(): LoopHold[];
  reset(): void;
  stop(): void;
}

const SCHEDSTAT = '/proc/thread-self/schedstat';
const KEPT_LONG_HOLDS = 100;

/** The calling thread's CPU time in ns, from an fd opened by that thread; undefined if unreadable. */
function threadCpuReader(): { read(): number; close(): void } | undefined {
  let fd: number;
  try {
    fd = openSync(SCHEDSTAT, 'r');
  } catch {
    return undefined;
  }
  const buffer = Buffer.alloc(96);
  // The first field's digits, read from the bytes: no string made 100 times a second.
  const read = () => {
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    let ns = 0;
    let digits = 0;
    for (; digits < length; digits++) {
      const byte = buffer[digits]!;
      if (byte < 0x30 || byte > 0x39) break;
      ns = ns * 10 + (byte - 0x30);
    }
    return digits > 0 ? ns : Number.NaN;
  };
  try {
    if (!Number.isFinite(read())) throw new Error('unexpected schedstat');
  } catch {
    closeSync(fd);
    return undefined;
  }
  return { read, close: () => closeSync(fd) };
}

/**
 * Watches the event loop of the thread that calls it (the main thread, for a service). The timer
 * is unref'd: it never keeps a process alive.
 */
export function monitorLoopHolds(options: LoopHoldMonitorOptions = {}): LoopHoldMonitor {
  const intervalMs = options.intervalMs ?? 10;
  const reportOverMs = options.reportOverMs ?? 50;
  const cpu = threadCpuReader();
  const histogram = options.metrics?.histogram(
    'event_loop_hold_seconds',
    'How long the event loop was held between two turns of a 10 ms timer (main-thread CPU time), when over 20 ms',
    [],
    [0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const maxGauge = options.metrics?.gauge(
    'event_loop_hold_max_seconds',
    'The longest event-loop hold since the process started (main-thread CPU time)',
  );
  const longCounter = options.metrics?.counter(
    'event_loop_long_holds_total',
    `Event-loop holds of ${reportOverMs} ms or more (main-thread CPU time)`,
  );
  let max = 0;
  let everMax = 0;
  let long: LoopHold[] = [];
  let lastWall = performance.now();
  let lastCpu = cpu?.read() ?? 0;

  const timer = setInterval(() => {
    const wall = performance.now();
    const wallMs = wall - lastWall;
    let holdMs: number;
    if (cpu) {
      const now = cpu.read();
      holdMs = (now - lastCpu) / 1e6;
      lastCpu = now;
    } else {
      holdMs = Math.max(0, wallMs - intervalMs);
    }
    lastWall = wall;
    // A turn that came on time was not held, whatever little CPU it took.
    if (wallMs < intervalMs * 2) return;
    if (holdMs > max) max = holdMs;
    if (holdMs > everMax) {
      everMax = holdMs;
      maxGauge?.set({}, everMax / 1000);
    }
    if (holdMs >= 20) histogram?.observe({}, holdMs / 1000);
    if (holdMs >= reportOverMs) {
      const hold = { holdMs, wallMs, at: Date.now() };
      long.push(hold);
      if (long.length > KEPT_LONG_HOLDS) long = long.slice(-KEPT_LONG_HOLDS);
      longCounter?.inc();
      options.logger?.warn(
        { hold_ms: Math.round(holdMs), wall_ms: Math.round(wallMs), measure: cpu ? 'cpu' : 'wall' },
        'event loop held: one piece of work ran without yielding',
      );
      options.onHold?.(hold);
    }
  }, intervalMs);
  timer.unref();

  return {
    measure: cpu ? 'cpu' : 'wall',
    maxHoldMs: () => max,
    longHolds: () => [...long],
    reset() {
      max = 0;
      long = [];
    },
    stop() {
      clearInterval(timer);
      cpu?.close();
    },
  };
}
