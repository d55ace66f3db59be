import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BreakerOptions } from '@svc/backend-client';
import { type ClickHouse, dropTestClickHouse } from '@svc/clickhouse';
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
import {
  busyHoldings,
  createPromMetrics,
  type Metrics,
  type MetricsService,
  mergedExposition,
  metricsPrefix,
} from '@svc/metrics';
import { createCoreApp, createHttpIngestKeyResolver, signIngestBody } from '@svc/observability-core';
import { createCoreTestDatabase } from '@svc/observability-core/testing/core-database';
import type { Postgres } from '@svc/postgres';
import { memoryPostgres } from '@svc/postgres/testing/memory';
import { wireRecall } from '@svc/recall';
import { createSelfTracer, type Tracer } from '@svc/self-trace';
import type { Express } from 'express';
import { answerWorkerBundle } from './entries';

/** How long everything taken may take to be given back once the faults are over (a condition's ceiling). */
const IDLE_CEILING_MS = 120_000;

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
  /**
   * Waits until every holding gauge of every service reads 0 (nothing held: budgets, slots,
   * sessions, streams, waiters) and answers those that did not within the ceiling; {} when idle.
   */
  holdingsIdle(): Promise<Record<string, number>>;
  stopCore(): Promise<void>;
  startCore(): Promise<void>;
  stopIdentity(): Promise<void>;
  startIdentity(): Promise<void>;
  /** With `recall: true`: its address and process control, and a delay each request waits first. */
  recall?: {
    url: string;
    stop(): Promise<void>;
    start(): Promise<void>;
    /** While above 0, internal requests wait this long before recall takes them. */
    delayMs: number;
    /** Internal requests held back by delayMs so far: a test waits for its call to be in flight. */
    held: number;
  };
  ingest(body: Record<string, unknown[]>): Promise<void>;
  admin(path: string, body: unknown): Promise<Record<string, unknown>>;
  gateway: WiredGateway;
  /** identity's side of the gateways' token caches. */
  invalidations: InvalidationHub;
  /** identity's audit checkpoint log (a throwaway directory). */
  checkpoints: CheckpointStore;
  /**
   * With `selfTrace: true`: the project identity, the core and the gateway trace themselves into
   * (in the test org, named "stack"), a token for it, and a flush of every tracer.
   */
  selfTrace?: { projectId: string; token: string; flush(): Promise<void> };
  close(): Promise<void>;
}

class Restartable {
  server: Server | undefined;
  port = 0;
  /** Replaced by `selfTrace` with the same service traced (same stores, same port). */
  constructor(public app: Express) {}
  async start(): Promise<void> {
    const server = createServer((req, res) => this.app(req, res));
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

async function adminPost(
  identityUrl: string,
  secret: string,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${identityUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-secret': secret },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function startInProcessStack(
  options: {
    breaker?: BreakerOptions;
    name?: string;
    invalidation?: Partial<InvalidationTiming>;
    /** The in-process gateway's token cache (default on). */
    gatewayTokenCache?: boolean;
    /** Runs the recall service too, registered with the gateway while it answers /healthz. */
    recall?: boolean;
    /** How often the gateway probes recall and copilot (default: once an hour, i.e. never in a test). */
    healthIntervalMs?: number;
    /** identity, the core and the gateway trace themselves into a "stack" project (SVC_SELF_TRACE_PROJECT). */
    selfTrace?: boolean;
  } = {},
): Promise<InProcessStack> {
  const secret = 'in-process-secret-0123456789';
  const logger = silentLogger;
  // Each service its own registry, as in the one-process stack: the check after faults reads them
  // together.
  const registries: Metrics[] = [];
  const registry = (service: MetricsService) => {
    const made = createPromMetrics({ prefix: metricsPrefix(service), defaultMetrics: false });
    registries.push(made);
    return made;
  };
  const metrics = registry('identity');
  const coreMetrics = registry('core');
  const recallMetrics = registry('recall');
  const gatewayMetrics = registry('gateway');

  const db = await memoryPostgres();
  await migrateIdentity(db);
  const invalidations = createInvalidationHub({ db, logger, metrics, timing: options.invalidation });
  const checkpoints = await openThrowawayCheckpointStore();
  const identityApp = (tracer?: Tracer) =>
    createIdentityApp({
      db,
      internalSecret: secret,
      logger,
      metrics,
      invalidations,
      checkpoints,
      ...(tracer ? { tracer } : {}),
    });
  const identity = new Restartable(identityApp());
  await identity.start();
  const identityUrl = `http://127.0.0.1:${identity.port}`;

  const ch = await createCoreTestDatabase(options.name ?? 'in_process');
  let hits = 0;
  const coreAppWith = (tracer?: Tracer) =>
    createCoreApp({
      ch,
      ingestKeys: createHttpIngestKeyResolver({ identityUrl, internalSecret: secret }),
      internalSecret: secret,
      logger,
      metrics: coreMetrics,
      ...(tracer ? { tracer } : {}),
    });
  let coreApp = coreAppWith();
  const counted = ((req, res, next) => {
    if (req.url?.startsWith('/internal/v1/projects/') && !req.url.endsWith('/ingest')) hits++;
    return coreApp(req, res, next);
  }) as Express;
  const core = new Restartable(counted);
  await core.start();
  const coreUrl = `http://127.0.0.1:${core.port}`;

  // Self-tracing: the project must exist before the tracers are made, and projects are identity's,
  // so identity and the core start untraced and are swapped for traced apps on the same stores.
  let selfTrace: InProcessStack['selfTrace'];
  const tracers: Tracer[] = [];
  if (options.selfTrace) {
    const made = await adminPost(identityUrl, secret, '/internal/v1/admin/bootstrap', {
      org_name: 'Test org',
      project_name: 'stack',
      user_email: 'test@example.com',
    });
    const projectId = String(made.project_id);
    const tracer = (service: 'identity' | 'observability-core') =>
      createSelfTracer({ service, project: projectId, coreUrl, internalSecret: secret })!;
    const identityTracer = tracer('identity');
    const coreTracer = tracer('observability-core');
    tracers.push(identityTracer, coreTracer);
    identity.app = identityApp(identityTracer);
    coreApp = coreAppWith(coreTracer);
    const { token } = await adminPost(identityUrl, secret, '/internal/v1/admin/tokens', {
      project_id: projectId,
    });
    selfTrace = {
      projectId,
      token: String(token),
      flush: async () => {
        for (const t of tracers) await t.exporter.flush();
      },
    };
  }

  let recallControl: InProcessStack['recall'];
  let closeRecall = async () => {};
  if (options.recall) {
    const filesDir = await mkdtemp(join(tmpdir(), 'svc-recall-'));
    const recall = await wireRecall(
      {
        port: 0,
        host: '127.0.0.1',
        internalSecret: secret,
        identityUrl,
        logLevel: 'silent',
        database: { dataDir: ':memory:' },
        filesDir,
        masterKey: randomBytes(32),
        selfTrace: undefined,
      },
      { logger, metrics: recallMetrics },
    );
    const recallApp = recall.app;
    const control = { delayMs: 0, held: 0 } as NonNullable<InProcessStack['recall']>;
    const delayed = ((req, res, next) => {
      if (control.delayMs > 0 && req.url?.startsWith('/internal/')) {
        control.held++;
        // A request whose connection died meanwhile (the service was stopped) is dropped.
        setTimeout(() => {
          if (!req.socket.destroyed) recallApp(req, res, next);
        }, control.delayMs).unref();
        return;
      }
      return recallApp(req, res, next);
    }) as Express;
    const recallServer = new Restartable(delayed);
    await recallServer.start();
    control.url = `http://127.0.0.1:${recallServer.port}`;
    control.stop = () => recallServer.stop();
    control.start = () => recallServer.start();
    recallControl = control;
    closeRecall = async () => {
      await recallServer.stop();
      await recall.close();
      await rm(filesDir, { recursive: true, force: true });
    };
  }

  const config = loadGatewayConfig({
    SVC_INTERNAL_SECRET: secret,
    ...(recallControl ? { SVC_RECALL_ENDPOINT: recallControl.url } : {}),
    SVC_OBSERVABILITY_ENDPOINT: coreUrl,
    SVC_IDENTITY_INTERNAL_URL: identityUrl,
    SVC_MCP_HTTP_PORT: '0',
    SVC_METRICS_PORT: '0',
    SVC_TOKEN_CACHE: options.gatewayTokenCache === false ? '0' : '1',
    // The gateway's own tracer comes from its configuration, as in a deployment.
    ...(selfTrace ? { SVC_SELF_TRACE_PROJECT: selfTrace.projectId } : {}),
  });
  const answerWorker = answerWorkerBundle();
  const gateway = wireGateway(config, {
    logger,
    metrics: gatewayMetrics,
    ...(options.breaker ? { breaker: options.breaker } : {}),
    healthIntervalMs: options.healthIntervalMs ?? 3_600_000,
    // Built once per run (test-bundles.ts): from sources each worker compiled its module through
    // tsx at every start (1.5 CPU-s against 0.4), and a worker idle for 30 s stops.
    ...(answerWorker ? { answerWorkerModule: answerWorker } : {}),
  });
  if (recallControl) {
    gateway.healthMonitor.start();
    await gateway.healthMonitor.probeNow();
  }
  const gatewayServer = new Restartable(gateway.app);
  await gatewayServer.start();
  if (gateway.tracer) tracers.unshift(gateway.tracer);

  const admin = (path: string, body: unknown) => adminPost(identityUrl, secret, path, body);
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
    async holdingsIdle() {
      const exposition = mergedExposition(registries);
      const started = Date.now();
      let busy = busyHoldings(await exposition.render());
      while (Object.keys(busy).length > 0 && Date.now() - started < IDLE_CEILING_MS) {
        await new Promise((r) => setTimeout(r, 100));
        busy = busyHoldings(await exposition.render());
      }
      return busy;
    },
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
    ...(recallControl ? { recall: recallControl } : {}),
    ...(selfTrace ? { selfTrace } : {}),
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
      await closeRecall();
      for (const t of tracers) await t.shutdown();
      await core.stop();
      await invalidations.close();
      await identity.stop();
      await dropTestClickHouse(ch);
      await checkpoints.close();
      await db.close();
    },
  };
}
