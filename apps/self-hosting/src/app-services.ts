import { loadConsoleConfig } from '@svc/console';
import { loadCopilotConfig } from '@svc/copilot';
import { loadGatewayConfig } from '@svc/http-gateway';
import { loadIdentityConfig } from '@svc/identity';
import { loadCoreConfig } from '@svc/observability-core';
import { loadRecallConfig } from '@svc/recall';

// The stack's services as docker-compose.yml runs them: each compose service is the app of the same
// name (apps/<name>), configured by its own config.ts loader, which is the one source of which
// SVC_* variables it reads, which it requires, and where it listens.

export interface Listener {
  what: string;
  host: string;
  port: number;
}

export interface AppService {
  /** The compose service, the Dockerfile target and the folder under apps/. */
  name: string;
  /** The service's loader, given the environment its container gets. Throws on a bad or missing variable. */
  load(env: Record<string, string | undefined>): unknown;
  /** Where the loaded configuration says the service listens; the first one serves /healthz. */
  listeners(config: unknown): Listener[];
}

// The data dir a container resolves relative paths against (the images' WORKDIR).
const IMAGE_WORKDIR = '/app';

interface Listens {
  host: string;
  port: number;
}
const listening = (what: string) => (c: unknown) => {
  const { host, port } = c as Listens;
  return [{ what, host, port }];
};

export const APP_SERVICES: readonly AppService[] = [
  {
    name: 'identity',
    load: (env) => loadIdentityConfig(env, IMAGE_WORKDIR),
    listeners: listening('identity'),
  },
  {
    name: 'observability-core',
    load: (env) => loadCoreConfig(env, IMAGE_WORKDIR),
    listeners: listening('observability-core'),
  },
  {
    name: 'recall',
    load: (env) => loadRecallConfig(env, IMAGE_WORKDIR),
    listeners: listening('recall'),
  },
  { name: 'copilot', load: loadCopilotConfig, listeners: listening('copilot') },
  {
    name: 'http-gateway',
    load: loadGatewayConfig,
    listeners: (c) => {
      const g = c as Listens & { metricsPort: number };
      return [
        { what: 'gateway', host: g.host, port: g.port },
        { what: 'metrics', host: g.host, port: g.metricsPort },
      ];
    },
  },
  { name: 'console', load: loadConsoleConfig, listeners: listening('console') },
];

export interface LoadedService {
  config: unknown;
  /** Every variable the loader looked at, present or not. */
  reads: Set<string>;
}

/**
 * Runs the loader on `env` and records every variable it reads: a zod object schema looks up each
 * of its keys whether set or not, so this is the loader's full list, not only what `env` holds.
 */
export function loadRecordingReads(app: AppService, env: Record<string, string | undefined>): LoadedService {
  const reads = new Set<string>();
  const recording = new Proxy(env, {
    get(target, key, receiver) {
      if (typeof key === 'string') reads.add(key);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      if (typeof key === 'string') reads.add(key);
      return Reflect.has(target, key);
    },
  });
  return { config: app.load(recording), reads };
}
