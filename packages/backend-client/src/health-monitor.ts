import { randomUUID } from 'node:crypto';
import { silentLogger } from '@svc/logger';
import type { Logger } from '@svc/tool-kit';
import type { BackendClient, BreakerState } from './backend-client';

export interface MonitoredBackend {
  name: string;
  /** Absent when the endpoint is unset: the backend is not deployed and never becomes available. */
  client: BackendClient | undefined;
  /**
   * Required backends (core, identity) are always treated as available: their tools stay listed
   * and a failure surfaces as 503 on the call. Only optional ones (recall, copilot) are probed,
   * because their tool groups appear and disappear with their health.
   */
  required: boolean;
}

export interface BackendHealth {
  required: boolean;
  deployed: boolean;
  available: boolean;
  breaker: BreakerState | null;
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
  /** One probe round of every optional deployed backend; resolves when it is done. */
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

  async function probe(backend: MonitoredBackend & { client: BackendClient }): Promise<void> {
    let healthy: boolean;
    try {
      await backend.client.getJson('/healthz', { requestId: `health-${randomUUID()}`, retry: false });
      healthy = true;
    } catch (err) {
      healthy = false;
      logger.debug({ backend: backend.name, err }, 'health probe failed');
    }
    if (available.get(backend.name) === healthy) return;
    available.set(backend.name, healthy);
    logger.info({ backend: backend.name, available: healthy }, 'backend availability changed');
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
        .filter((b): b is MonitoredBackend & { client: BackendClient } => !b.required && !!b.client)
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
          available: available.get(name) === true,
          breaker: b.client ? b.client.breakerState() : null,
        };
      }
      return out;
    },
  };
}
