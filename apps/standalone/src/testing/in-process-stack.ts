import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BreakerOptions } from '@svc/backend-client';
import { type ClickHouse, createTestClickHouse, dropTestClickHouse } from '@svc/clickhouse';
import { loadGatewayConfig, type WiredGateway, wireGateway } from '@svc/http-gateway';
import {
  type CheckpointStore,
  createIdentityApp,
  createInvalidationHub,
  type InvalidationHub,
  type InvalidationTiming,
  migrateIdentity,
} from '@svc/identity';
import { openThrowawayCheckpointStore } from '@svc/identity/testing';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import {
  createCoreApp,
  createHttpIngestKeyResolver,
  migrateCore,
  signIngestBody,
} from '@svc/observability-core';
import { createPostgres, type Postgres } from '@svc/postgres';
import type { Express } from 'express';

/**
 * The real services inside the test process, each on its own loopback port, so a test can stop
 * and restart one of them (a real outage, not a mock) and watch the others.
 */
export interface InProcessStack {
  secret: string;
  db: Postgres;
  ch: ClickHouse;
  urls: { gateway: string; core: string; identity: string };
  projectId: string;
  orgId: string;
  userId: string;
  token: string;
  /** Requests that reached the core's internal tool endpoint. */
  coreToolHits(): number;
  stopCore(): Promise<void>;
  startCore(): Promise<void>;
  stopIdentity(): Promise<void>;
  startIdentity(): Promise<void>;
  ingest(body: Record<string, unknown[]>): Promise<void>;
  admin(path: string, body: unknown): Promise<Record<string, unknown>>;
  gateway: WiredGateway;
  /** identity's side of the gateways' token caches. */
  invalidations: InvalidationHub;
  /** identity's audit checkpoint log (a throwaway directory). */
  checkpoints: CheckpointStore;
  close(): Promise<void>;
}

class Restartable {
  server: Server | undefined;
  port = 0;
  constructor(private readonly app: Express) {}
  async start(): Promise<void> {
    const server = createServer(this.app);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

export async function startInProcessStack(
  options: {
    breaker?: BreakerOptions;
    name?: string;
    invalidation?: Partial<InvalidationTiming>;
    /** The in-process gateway's token cache (default on). */
    gatewayTokenCache?: boolean;
  } = {},
): Promise<InProcessStack> {
  const secret = 'in-process-secret-0123456789';
  const logger = silentLogger;
  const metrics = createNoopMetrics();

  const db = await createPostgres({ dataDir: ':memory:' });
  await migrateIdentity(db);
  const invalidations = createInvalidationHub({ db, logger, metrics, timing: options.invalidation });
  const checkpoints = await openThrowawayCheckpointStore();
  const identity = new Restartable(
    createIdentityApp({ db, internalSecret: secret, logger, metrics, invalidations, checkpoints }),
  );
  await identity.start();
  const identityUrl = `http://127.0.0.1:${identity.port}`;

  const ch = await createTestClickHouse(options.name ?? 'in_process');
  await migrateCore(ch);
  let hits = 0;
  const coreApp = createCoreApp({
    ch,
    ingestKeys: createHttpIngestKeyResolver({ identityUrl, internalSecret: secret }),
    internalSecret: secret,
    logger,
    metrics,
  });
  const counted = ((req, res, next) => {
    if (req.url?.startsWith('/internal/v1/projects/')) hits++;
    return coreApp(req, res, next);
  }) as Express;
  const core = new Restartable(counted);
  await core.start();
  const coreUrl = `http://127.0.0.1:${core.port}`;

  const config = loadGatewayConfig({
    SVC_INTERNAL_SECRET: secret,
    SVC_OBSERVABILITY_ENDPOINT: coreUrl,
    SVC_IDENTITY_INTERNAL_URL: identityUrl,
    SVC_MCP_HTTP_PORT: '0',
    SVC_METRICS_PORT: '0',
    SVC_TOKEN_CACHE: options.gatewayTokenCache === false ? '0' : '1',
  });
  const gateway = wireGateway(config, {
    logger,
    metrics,
    ...(options.breaker ? { breaker: options.breaker } : {}),
    healthIntervalMs: 3_600_000,
  });
  const gatewayServer = new Restartable(gateway.app);
  await gatewayServer.start();

  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${identityUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': secret },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const boot = (await admin('/internal/v1/admin/bootstrap', {
    org_name: 'Test org',
    project_name: 'Test project',
    user_email: 'test@example.com',
  })) as { org_id: string; project_id: string; user_id: string };
  const { token } = (await admin('/internal/v1/admin/tokens', {
    project_id: boot.project_id,
    user_id: boot.user_id,
  })) as { token: string };
  const key = (await admin('/internal/v1/admin/ingest-keys', { project_id: boot.project_id })) as {
    key_id: string;
    secret: string;
  };

  return {
    secret,
    db,
    ch,
    urls: { gateway: `http://127.0.0.1:${gatewayServer.port}`, core: coreUrl, identity: identityUrl },
    projectId: boot.project_id,
    orgId: boot.org_id,
    userId: boot.user_id,
    token,
    gateway,
    coreToolHits: () => hits,
    stopCore: () => core.stop(),
    startCore: () => core.start(),
    invalidations,
    checkpoints,
    // A stopped identity ends its streams too (a restart, as the gateways see it).
    async stopIdentity() {
      await invalidations.close();
      await identity.stop();
    },
    startIdentity: () => identity.start(),
    admin,
    async ingest(body) {
      const text = JSON.stringify(body);
      const ts = Math.floor(Date.now() / 1000);
      const res = await fetch(`${coreUrl}/ingest/v1/batch`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-svc-key': key.key_id,
          'x-svc-timestamp': String(ts),
          'x-svc-signature': signIngestBody(key.secret, ts, text),
        },
        body: text,
      });
      if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
    },
    async close() {
      await gateway.close();
      await gatewayServer.stop();
      await core.stop();
      await invalidations.close();
      await identity.stop();
      await dropTestClickHouse(ch);
      await checkpoints.close();
      await db.close();
    },
  };
}
