import { randomUUID } from 'node:crypto';
import { silentLogger } from '@svc/logger';
import type { Logger } from '@svc/tool-kit';
import type { BackendClient } from './backend-client';
import type { BreakerState } from './breakers';

export interface MonitoredBackend {
  name: string;
  /** Absent when the endpoint is unset: the backend is not deployed and never becomes available. */
  client: BackendClient | undefined;
  /**
   * Required backends (core, identity) always count as available for visibility: their tools stay
   * listed and a failure surfaces as 503 on the call. Optional ones (recall, copilot) are visible
   * while healthy: their tool groups appear at a healthy probe and disappear after
   * UNLIST_AFTER_FAILED_PROBES failed ones in a row. Both are probed, so /healthz reports every
   * dependency's real state (`reachable`: the last probe's answer).
   */
  required: boolean;
}

export interface BackendHealth {
  required: boolean;
  deployed: boolean;
  /** The last probe's answer (null before the first probe of a deployed backend). */
  reachable: boolean | null;
  /**
   * Whether its tools are listed: required ones always; optional ones from their first healthy
   * probe until UNLIST_AFTER_FAILED_PROBES probes in a row fail.
   */
  available: boolean;
  breaker: BreakerState | null;
  /** ISO time of the last probe, null before the first. */
  checked_at: string | null;
}

export interface HealthMonitorOptions {
  backends: MonitoredBackend[];
  intervalMs: number;
  onChange?: AvailabilityListener;
  logger?: Logger;
}

export interface HealthMonitor {
  /** Probes at once, then every intervalMs. */
  start(): void;
  stop(): void;
  /** One probe round of every deployed backend; resolves when it is done. */
  probeNow(): Promise<void>;
  isAvailable(name: string): boolean;
  snapshot(): Record<string, BackendHealth>;
  /** Another listener for availability changes (besides `onChange`); returns the unsubscribe. */
  subscribe(listener: AvailabilityListener): () => void;
}

export type AvailabilityListener = (name: string, available: boolean) => void;

/**
 * Failed probes in a row that unlist an optional backend's tools. One slow or dropped probe on a
 * busy host is not an outage: unlisting at once made every client's tool list flap (each change
 * is a tools/list_changed, and clients read the list again; a model mid-task loses tools). A
 * backend that stopped is unlisted at the second probe (15-30 s at the gateway's interval), and a
 * call before that answers 503. One healthy probe lists it again.
 */
export const UNLIST_AFTER_FAILED_PROBES = 2;

export function createHealthMonitor(options: HealthMonitorOptions): HealthMonitor {
  const logger = options.logger ?? silentLogger;
  const byName = new Map(options.backends.map((b) => [b.name, b]));
  // Optional backends start unavailable: their tools appear only after a first healthy probe.
  const available = new Map<string, boolean>(options.backends.map((b) => [b.name, b.required && !!b.client]));
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  const listeners = new Set<AvailabilityListener>(options.onChange ? [options.onChange] : []);
  const reachable = new Map<string, boolean>();
  const failedInARow = new Map<string, number>();
  const checkedAt = new Map<string, string>();

  async function probe(backend: MonitoredBackend & { client: BackendClient }): Promise<void> {
    let healthy: boolean;
    try {
      await backend.client.getJson('/healthz', {
        requestId: `health-${randomUUID()}`,
        retry: false,
        untraced: true,
      });
      healthy = true;
    } catch (err) {
      healthy = false;
      logger.debug({ backend: backend.name, err }, 'health probe failed');
    }
    checkedAt.set(backend.name, new Date().toISOString());
    const changed = reachable.get(backend.name) !== healthy;
    reachable.set(backend.name, healthy);
    const failures = healthy ? 0 : (failedInARow.get(backend.name) ?? 0) + 1;
    failedInARow.set(backend.name, failures);
    // Required backends stay listed whatever the probe says (a call surfaces the failure as 503).
    // An optional one is listed at its first healthy probe and unlisted only after several failed
    // ones in a row (one before it was ever listed: it was not listed anyway).
    const listed = available.get(backend.name) === true;
    const availabilityChanged =
      !backend.required && (healthy ? !listed : listed && failures >= UNLIST_AFTER_FAILED_PROBES);
    if (availabilityChanged) available.set(backend.name, healthy);
    // One line per change of state. A reachable backend (a healthy first probe included) is news,
    // at info; only an unreachable one is a problem, at warn. `pnpm start` logs at warn, so a
    // healthy start prints nothing before its banner.
    if (changed) {
      const fields = {
        backend: backend.name,
        required: backend.required,
        available: available.get(backend.name),
      };
      if (healthy) logger.info(fields, 'backend reachable');
      else logger.warn(fields, 'backend unreachable');
    }
    if (!availabilityChanged) return;
    for (const listener of listeners) {
      try {
        listener(backend.name, healthy);
      } catch (err) {
        logger.error({ err, backend: backend.name }, 'availability listener failed');
      }
    }
  }

  function probeNow(): Promise<void> {
    inFlight ??= Promise.all(
      options.backends
        .filter((b): b is MonitoredBackend & { client: BackendClient } => !!b.client)
        .map(probe),
    ).then(
      () => {
        inFlight = undefined;
      },
      () => {
        inFlight = undefined;
      },
    );
    return inFlight;
  }

  return {
    start() {
      if (timer) return;
      void probeNow();
      timer = setInterval(() => void probeNow(), options.intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    probeNow,
    isAvailable: (name) => available.get(name) === true,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    snapshot() {
      const out: Record<string, BackendHealth> = {};
      for (const [name, b] of byName) {
        out[name] = {
          required: b.required,
          deployed: !!b.client,
          reachable: reachable.get(name) ?? null,
          available: available.get(name) === true,
          breaker: b.client ? b.client.breakerState() : null,
          checked_at: checkedAt.get(name) ?? null,
        };
      }
      return out;
    },
  };
}
