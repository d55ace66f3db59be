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
   * only while healthy: their tool groups appear and disappear with their health. Both are probed,
   * so /healthz reports every dependency's real state.
   */
  required: boolean;
}

export interface BackendHealth {
  required: boolean;
  deployed: boolean;
  /** The last probe's answer (null before the first probe of a deployed backend). */
  reachable: boolean | null;
  /** Whether its tools are listed: required ones always, optional ones while reachable. */
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

export function createHealthMonitor(options: HealthMonitorOptions): HealthMonitor {
  const logger = options.logger ?? silentLogger;
  const byName = new Map(options.backends.map((b) => [b.name, b]));
  // Optional backends start unavailable: their tools appear only after a first healthy probe.
  const available = new Map<string, boolean>(options.backends.map((b) => [b.name, b.required && !!b.client]));
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  const listeners = new Set<AvailabilityListener>(options.onChange ? [options.onChange] : []);
  const reachable = new Map<string, boolean>();
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
    // Required backends stay listed whatever the probe says (a call surfaces the failure as 503).
    const availabilityChanged = !backend.required && available.get(backend.name) !== healthy;
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
