import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIdentityApp, migrateIdentity } from '@svc/identity';
import { openThrowawayCheckpointStore } from '@svc/identity/testing';
import { createHttpIngestKeyResolver } from '@svc/ingest-auth';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics, createPromMetrics, readGauge } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import { memoryPostgres } from '@svc/postgres/testing/memory';
import type { Express } from 'express';
import { createRecallApp } from '../app';
import { createIdentityConsoleSessions } from '../console-sessions';
import { signedDeviceHeaders } from '../device-signing';
import { createFileStore } from '../file-store';
import { createKeyStore, type KeyStore } from '../keys';
import { DEFAULT_READ_LIMITS, type ReadLimits } from '../read-budget';
import { migrateRecall } from '../store/migrations';
import { gatedFileStore, type ReadGate } from './read-gate';

// A real identity and a real recall service on loopback ports, each on its own in-memory
// PGlite: recall asks identity over HTTP about ingest keys and console sessions.

export const SECRET = 'recall-test-internal-secret-0123';

export interface TestProject {
  orgId: string;
  projectId: string;
  key: { key_id: string; secret: string };
  /** A console session of a person of the project's org. */
  session: string;
  userId: string;
}

export interface DeviceAnswer {
  status: number;
  json: () => Promise<Record<string, unknown>>;
  sent: { headers: Record<string, string>; path: string };
}

export interface RecallHarness {
  url: string;
  app: Express;
  db: Postgres;
  keys: KeyStore;
  identityUrl: string;
  clock: { now: number };
  /** The bounds of file reads the service uses: a test may change them, and puts them back. */
  limits: ReadLimits;
  /** Holds reads of chosen files at their first bytes (the read has its slot then). */
  gate: ReadGate;
  /** A gauge of the service's metrics, e.g. recall_read_slots_held (prefix left out). */
  gauge(name: string): Promise<number | undefined>;
  /** A new org with one project, an ingest key and a signed-in person; vis_recall on unless told. */
  project(name: string, options?: { recall?: boolean }): Promise<TestProject>;
  /**
   * A signed device request, as an SDK sends it (signed whole, a fresh nonce; GETs sign an empty
   * body). `sent` is what went out, for tests that send it again (a replay).
   */
  device(p: TestProject, method: 'GET' | 'POST', path: string, body?: Buffer): Promise<DeviceAnswer>;
  /** A device request sent exactly as given: headers, path and body (replays, forgeries). */
  sendDevice(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body?: Buffer,
  ): Promise<DeviceAnswer>;
  tool(
    projectId: string,
    name: string,
    input: unknown,
    actor?: unknown,
    signal?: AbortSignal,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

async function listen(app: Express): Promise<{ server: Server; url: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function startRecallHarness(): Promise<RecallHarness> {
  const clock = { now: Date.parse('2026-11-20T12:00:00.000Z') };
  const identityDb = await memoryPostgres();
  await migrateIdentity(identityDb);
  const checkpoints = await openThrowawayCheckpointStore();
  const identity = await listen(
    createIdentityApp({
      db: identityDb,
      internalSecret: SECRET,
      logger: silentLogger,
      metrics: createNoopMetrics(),
      now: () => clock.now,
      ingestEndpoint: 'http://ingest.example:8080',
      checkpoints,
    }),
  );
  const db = await memoryPostgres();
  await migrateRecall(db);
  const filesDir = await mkdtemp(join(tmpdir(), 'svc-recall-files-'));
  const now = () => new Date(clock.now);
  const keys = createKeyStore(db, randomBytes(32), now);
  const limits: ReadLimits = { ...DEFAULT_READ_LIMITS };
  const { files, gate } = gatedFileStore(createFileStore(filesDir));
  const metrics = createPromMetrics({ prefix: 'svc_recall_', defaultMetrics: false });
  const app = createRecallApp({
    readLimits: limits,
    db,
    files,
    keys,
    logger: silentLogger,
    metrics,
    clock: now,
    internalSecret: SECRET,
    ingestKeys: createHttpIngestKeyResolver({
      identityUrl: identity.url,
      internalSecret: SECRET,
      cacheMs: 0,
    }),
    consoleSessions: createIdentityConsoleSessions({ identityUrl: identity.url, internalSecret: SECRET }),
  });
  const recall = await listen(app);

  const admin = async (method: 'POST' | 'PUT', path: string, body: unknown) => {
    const res = await fetch(`${identity.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-internal-secret': SECRET },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };

  const sendDevice: RecallHarness['sendDevice'] = async (method, path, headers, body) => {
    const res = await fetch(`${recall.url}${path}`, {
      method,
      headers: { ...headers, ...(method === 'POST' ? { 'content-type': 'application/octet-stream' } : {}) },
      ...(method === 'POST' ? { body: body ?? Buffer.alloc(0) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      json: async () => JSON.parse(text) as Record<string, unknown>,
      sent: { headers, path },
    };
  };

  return {
    url: recall.url,
    app,
    db,
    keys,
    identityUrl: identity.url,
    clock,
    limits,
    gate,
    gauge: async (name) => readGauge(await metrics.render(), `svc_recall_${name}`),
    async project(name, options = {}) {
      const email = `${name}@recall.test`;
      const password = `password of ${name}`;
      const org = await admin('POST', '/internal/v1/admin/orgs', { name: `${name} org` });
      const project = await admin('POST', '/internal/v1/admin/projects', { name, org_id: org.org_id });
      const user = await admin('POST', '/internal/v1/admin/users', { email, password, org_id: org.org_id });
      if (options.recall !== false) {
        await admin('PUT', `/internal/v1/admin/orgs/${org.org_id}/capabilities/vis_recall`, {
          enabled: true,
        });
      }
      const key = await admin('POST', '/internal/v1/admin/ingest-keys', { project_id: project.project_id });
      const login = await fetch(`${identity.url}/console/v1/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      const { session_token } = (await login.json()) as { session_token: string };
      return {
        orgId: org.org_id!,
        projectId: project.project_id!,
        key: { key_id: key.key_id!, secret: key.secret! },
        session: session_token,
        userId: user.user_id!,
      };
    },
    async device(p, method, path, body) {
      const headers = signedDeviceHeaders(p.key, {
        method,
        target: path,
        body: body ?? Buffer.alloc(0),
        timestampSeconds: Math.floor(clock.now / 1000),
      });
      return sendDevice(method, path, headers, body);
    },
    sendDevice,
    async tool(
      projectId,
      name,
      input,
      actor = { token_id: 'tok_test', user_id: 'usr_test', transport: 'mcp' },
      signal,
    ) {
      const res = await fetch(`${recall.url}/internal/v1/projects/${projectId}/tools/${name}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-internal-secret': SECRET,
          ...(actor === null ? {} : { 'x-svc-actor': JSON.stringify(actor) }),
        },
        body: JSON.stringify(input),
        ...(signal ? { signal } : {}),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async close() {
      await new Promise((r) => recall.server.close(r));
      await new Promise((r) => identity.server.close(r));
      await db.close();
      await identityDb.close();
      await checkpoints.close();
      await rm(filesDir, { recursive: true, force: true });
    },
  };
}

/**
 * Polls a condition of the service (a gauge, a count) until it holds; up to two minutes, the
 * ceiling of a condition on a busy machine. Never a bound on how soon.
 */
export async function eventually(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const ceiling = Date.now() + 120_000;
  while (!(await check())) {
    if (Date.now() > ceiling) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
