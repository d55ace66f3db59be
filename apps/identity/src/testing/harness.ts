// Test support: an identity app over a fresh in-memory PGlite (started from the empty cluster's
// dump, memoryPostgres) and a checkpoint log in a fresh temporary directory, with a movable clock
// and a logger that keeps what it was given (to check security events).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPromMetrics, type Metrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import { memoryPostgres } from '@svc/postgres/testing/memory';
import type { Logger } from '@svc/tool-kit';
import type { Express } from 'express';
import request from 'supertest';
import { createIdentityApp } from '../app';
import type { CheckpointStore } from '../checkpoints/checkpoint-store';
import { openFileCheckpointStore } from '../checkpoints/file-checkpoint-store';
import { migrateIdentity } from '../migrations';
import type { OAuthOptions } from '../oauth/oauth-options';
import { newCheckpointKey } from './checkpoints';

export const SECRET = 'test-internal-secret-0123456789';
export const START = Date.parse('2030-01-01T00:00:00.000Z');
export const DAY_MS = 24 * 60 * 60 * 1000;

export interface LogLine {
  level: string;
  obj: Record<string, unknown>;
  msg?: string;
}

export function recordingLogger(lines: LogLine[]): Logger {
  const at =
    (level: string) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, obj: obj as Record<string, unknown>, msg });
    };
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

export interface Harness {
  db: Postgres;
  app: Express;
  checkpoints: CheckpointStore;
  /** Where the checkpoint log is, and the key it is signed with. */
  checkpointDir: string;
  checkpointKey: string;
  clock: { now: number };
  logs: LogLine[];
  /** The app's metrics (Prometheus text via render()). */
  metrics: Metrics;
  /** Authenticated internal call. */
  internal: (method: 'get' | 'post' | 'put' | 'delete', path: string) => request.Test;
  /** Closes the app's stores; a temporary checkpoint dir is removed, a given one kept. */
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** An existing checkpoint dir and key (a restart); default a new temporary dir and a new key. */
  checkpoints?: { dir: string; key: string };
  /** The OAuth authorization server's addresses (default: createIdentityApp's). */
  oauth?: OAuthOptions;
  /** Reverse proxies whose X-Forwarded-For names the client (default: none). */
  trustedProxies?: string[];
}

export async function startHarness(db?: Postgres, options: HarnessOptions = {}): Promise<Harness> {
  const store = db ?? (await memoryPostgres());
  await migrateIdentity(store);
  const clock = { now: START };
  const logs: LogLine[] = [];
  const logger = recordingLogger(logs);
  const temporary = options.checkpoints
    ? undefined
    : await mkdtemp(join(tmpdir(), 'svc-identity-checkpoints-'));
  const checkpointDir = options.checkpoints?.dir ?? temporary!;
  const checkpointKey = options.checkpoints?.key ?? newCheckpointKey();
  const checkpoints = await openFileCheckpointStore({ dir: checkpointDir, key: checkpointKey, logger });
  const metrics = createPromMetrics({ prefix: 'svc_identity_', defaultMetrics: false });
  const app = createIdentityApp({
    db: store,
    internalSecret: SECRET,
    logger,
    metrics,
    now: () => clock.now,
    ingestEndpoint: 'http://ingest.example:8080',
    checkpoints,
    ...(options.oauth ? { oauth: options.oauth } : {}),
    ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
  });
  return {
    db: store,
    app,
    checkpoints,
    checkpointDir,
    checkpointKey,
    clock,
    logs,
    metrics,
    internal: (method, path) => request(app)[method](path).set('X-Internal-Secret', SECRET),
    async close() {
      await checkpoints.close();
      await store.close();
      if (temporary) await rm(temporary, { recursive: true, force: true });
    },
  };
}

/** A fresh org with one project, through the admin API. */
export async function seedProject(h: Harness, name = 'p'): Promise<{ orgId: string; projectId: string }> {
  const org = await h
    .internal('post', '/internal/v1/admin/orgs')
    .send({ name: `org of ${name}` })
    .expect(201);
  const project = await h
    .internal('post', '/internal/v1/admin/projects')
    .send({ name, org_id: org.body.org_id })
    .expect(201);
  return { orgId: org.body.org_id, projectId: project.body.project_id };
}
