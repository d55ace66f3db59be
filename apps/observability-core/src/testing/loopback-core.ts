import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { signIngestBody } from '@svc/ingest-auth';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { createCoreApp } from '../app';
import { createCoreTestDatabase } from './core-database';

// Test fixture for other packages (copilot, sdk-node): a real core on a fresh chDB database,
// listening on a loopback port, that knows one ingest key.

export interface LoopbackCoreOptions {
  /** Names the throwaway database. */
  name: string;
  /** `allowedOrigins`: the browser origins the key allows (default none). */
  key: { keyId: string; secret: string; projectId: string; allowedOrigins?: readonly string[] };
  internalSecret: string;
  /** The core's clock; default the real one. */
  now?: () => number;
}

export interface LoopbackCore {
  ch: ClickHouse;
  url: string;
  /** A signed POST /ingest/v1/batch with the key; throws unless every record was accepted. */
  ingest(records: Record<string, unknown[]>): Promise<void>;
  /** A tool of the key's project through the internal API; throws on a non-2xx answer. */
  tool<T>(name: string, input: unknown): Promise<T>;
  close(): Promise<void>;
}

export async function startLoopbackCore(options: LoopbackCoreOptions): Promise<LoopbackCore> {
  const { key } = options;
  const ch = await createCoreTestDatabase(options.name);
  const app = createCoreApp({
    ch,
    ingestKeys: {
      resolve: async (keyId) =>
        keyId === key.keyId
          ? {
              projectId: key.projectId,
              secret: key.secret,
              active: true,
              allowedOrigins: key.allowedOrigins ?? [],
            }
          : null,
    },
    internalSecret: options.internalSecret,
    logger: silentLogger,
    metrics: createNoopMetrics(),
    ...(options.now ? { now: options.now } : {}),
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clock = options.now ?? Date.now;
  return {
    ch,
    url,
    async ingest(records) {
      const body = JSON.stringify(records);
      const ts = Math.floor(clock() / 1000);
      const res = await fetch(`${url}/ingest/v1/batch`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-svc-key': key.keyId,
          'x-svc-timestamp': String(ts),
          'x-svc-signature': signIngestBody(key.secret, ts, body),
        },
        body,
      });
      if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
    },
    async tool<T>(name: string, input: unknown) {
      const res = await fetch(`${url}/internal/v1/projects/${key.projectId}/tools/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-internal-secret': options.internalSecret },
        body: JSON.stringify(input),
      });
      if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await dropTestClickHouse(ch);
    },
  };
}
