import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuditEntry } from '@svc/audit';
import { generateToken } from '@svc/auth';
import { type BackendClient, createBackendClient } from '@svc/backend-client';
import { BackendUnavailableError } from '@svc/errors';
import {
  createBatchingAuditSink,
  createHttpAuditSink,
  createIdentityClient,
  fetchOrgCapabilities,
} from '@svc/identity-client';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import { memoryPostgres } from '@svc/postgres/testing/memory';
import express from 'express';
import { type CheckpointStore, createIdentityApp, migrateIdentity } from './index';
import { openThrowawayCheckpointStore } from './testing/checkpoints';

// @svc/identity-client against this service (PGlite in memory) over real HTTP: what the gateway,
// the core and recall use to introspect tokens, read org capabilities and write audit records.
const SECRET = 'identity-client-test-secret';
const logger = silentLogger;
const BREAKER = {
  volumeThreshold: 100,
  errorThresholdPercentage: 50,
  resetTimeoutMs: 1000,
  rollingCountTimeoutMs: 10_000,
};

let db: Postgres;
let checkpoints: CheckpointStore;
let server: Server;
let url: string;

function client(baseUrl = url): BackendClient {
  return createBackendClient({
    name: 'identity',
    baseUrl,
    internalSecret: SECRET,
    timeoutMs: 2000,
    breaker: BREAKER,
    metrics: createNoopMetrics(),
    logger,
  });
}

async function admin(path: string, body: unknown, method = 'POST') {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-internal-secret': SECRET },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, string>;
}

async function listen(app: express.Express): Promise<Server> {
  return new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
}

beforeAll(async () => {
  db = await memoryPostgres();
  await migrateIdentity(db);
  checkpoints = await openThrowawayCheckpointStore();
  server = await listen(
    createIdentityApp({ db, internalSecret: SECRET, logger, metrics: createNoopMetrics(), checkpoints }),
  );
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await checkpoints.close();
  await db.close();
});

describe('createIdentityClient', () => {
  it('introspects a real token, and an unknown one as inactive', async () => {
    const boot = await admin('/internal/v1/admin/bootstrap', {
      org_name: 'Client test org',
      project_name: 'Client test project',
      user_email: 'client-test@example.com',
    });
    const { token } = await admin('/internal/v1/admin/tokens', { project_id: boot.project_id });
    expect(token).toMatch(/^svc_pat_/);
    const identity = createIdentityClient(client(), logger);
    const answer = await identity.introspect(token!, { requestId: 'r1' });
    expect(answer).toMatchObject({
      active: true,
      project_id: boot.project_id,
      org_id: boot.org_id,
      scopes: ['mcp:read'],
    });
    expect(await identity.introspect(generateToken(), { requestId: 'r2' })).toEqual({
      active: false,
    });
  });

  it('fails closed with 503 when identity is unreachable', async () => {
    const identity = createIdentityClient(client('http://127.0.0.1:9'), logger);
    await expect(identity.introspect('svc_pat_x', { requestId: 'r' })).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
  });

  it('fails closed when identity answers outside its contract (never an allow)', async () => {
    const app = express();
    app.post('/internal/v1/introspect', (_req, res) => {
      res.json({ active: 'yes', project_id: 'p' });
    });
    const rogue = await listen(app);
    try {
      const identity = createIdentityClient(
        client(`http://127.0.0.1:${(rogue.address() as AddressInfo).port}`),
        logger,
      );
      await expect(identity.introspect('svc_pat_x', { requestId: 'r' })).rejects.toBeInstanceOf(
        BackendUnavailableError,
      );
    } finally {
      rogue.close();
    }
  });
});

describe('fetchOrgCapabilities', () => {
  it("returns the org's enabled controlled capabilities", async () => {
    const org = await admin('/internal/v1/admin/orgs', { name: 'caps' });
    expect(await fetchOrgCapabilities(client(), org.org_id!, { requestId: 'r' })).toEqual(new Set());
    await admin(`/internal/v1/admin/orgs/${org.org_id}/capabilities/vis_trace`, { enabled: true }, 'PUT');
    expect(await fetchOrgCapabilities(client(), org.org_id!, { requestId: 'r' })).toEqual(
      new Set(['vis_trace']),
    );
  });
});

const entry = (projectId: string): AuditEntry => ({
  id: randomUUID(),
  at: new Date().toISOString(),
  token_id: 'tok_1',
  user_id: null,
  org_id: null,
  project_id: projectId,
  tool: 'log.recent',
  transport: 'rest',
  status: 'ok',
  duration_ms: 3,
  request_id: 'req',
  params: { limit: 1 },
});

describe('createHttpAuditSink', () => {
  it('resolves once identity has committed the records', async () => {
    const sink = createHttpAuditSink(client());
    await sink.write([entry('prj_sink'), entry('prj_sink')]);
    const rows = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_records WHERE project_id = 'prj_sink'",
    );
    expect(rows.rows[0]!.n).toBe(2);
  });

  it('throws when the store cannot write', async () => {
    await db.query('ALTER TABLE audit_records RENAME TO audit_records_gone');
    try {
      await expect(createHttpAuditSink(client()).write([entry('prj_sink')])).rejects.toBeDefined();
    } finally {
      await db.query('ALTER TABLE audit_records_gone RENAME TO audit_records');
    }
  });
});

describe('createBatchingAuditSink (group commit) against identity', () => {
  const count = async (projectId: string) =>
    (
      await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_records WHERE project_id = $1', [
        projectId,
      ])
    ).rows[0]!.n;

  type SinkOptions = Omit<Parameters<typeof createBatchingAuditSink>[1], 'metrics'>;

  /** A batching sink over identity, the sizes of its writes; its first write waits for `firstWaits`. */
  function countedSink(options: SinkOptions = {}, firstWaits?: Promise<void>) {
    const writes: number[] = [];
    const http = createHttpAuditSink(client());
    const sink = createBatchingAuditSink(
      {
        write: async (entries) => {
          writes.push(entries.length);
          if (writes.length === 1 && firstWaits) await firstWaits;
          return http.write(entries);
        },
      },
      { metrics: createNoopMetrics(), ...options },
    );
    return { writes, sink };
  }

  /** A counted sink whose first write waits for `release()`. */
  function firstWriteHeld(options: SinkOptions = {}) {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    return { ...countedSink(options, held), release };
  }

  it('writes N concurrent calls as N records in fewer writes, the chain intact', async () => {
    const { writes, sink } = countedSink();
    const projects = ['prj_batch_a', 'prj_batch_b'];
    await Promise.all(Array.from({ length: 200 }, (_, i) => sink.write([entry(projects[i % 2]!)])));
    expect(writes.reduce((a, b) => a + b, 0)).toBe(200);
    expect(writes.length).toBeLessThan(200);
    for (const p of projects) {
      expect(await count(p)).toBe(100);
      const res = await fetch(`${url}/internal/v1/audit/verify?project_id=${p}`, {
        headers: { 'x-internal-secret': SECRET },
      });
      expect(await res.json()).toMatchObject({ ok: true, checked: 100 });
    }
  });

  it('calls finishing while a write is in flight, in separate turns, all join the next write', async () => {
    // The first write is held: identity busy with it while the other calls finish.
    const { writes, release, sink } = firstWriteHeld();
    const project = 'prj_batch_turns';
    const later = 5;
    const first = sink.write([entry(project)]);
    const others: Promise<void>[] = [];
    for (let i = 0; i < later; i++) {
      // Each in a turn of its own, after the first write has left.
      await new Promise((resolve) => setImmediate(resolve));
      others.push(sink.write([entry(project)]));
    }
    // None of them has left while the first write is held.
    expect(writes).toEqual([1]);
    release();
    await Promise.all([first, ...others]);
    expect(writes).toEqual([1, later]);
    expect(await count(project)).toBe(1 + later);
  });

  it('under load, the next write waits for more calls: those joining during the wait share it', async () => {
    // The wait is long enough never to end by itself here: a full batch (5) ends it.
    const { writes, release, sink } = firstWriteHeld({ maxRecords: 5, maxLingerMs: 600_000, lingerShare: 1 });
    const project = 'prj_batch_linger';
    const slow = () => ({ ...entry(project), duration_ms: 600_000 });
    const first = sink.write([slow()]);
    await new Promise((resolve) => setImmediate(resolve));
    // Three calls finish while identity holds the first write: the gateway is under load.
    const during = Array.from({ length: 3 }, () => sink.write([slow()]));
    release();
    await first;
    // The first write is done; two more calls finish, each in a turn of its own.
    const after: Promise<void>[] = [];
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      after.push(sink.write([slow()]));
    }
    await Promise.all([...during, ...after]);
    expect(writes).toEqual([1, 5]);
    expect(await count(project)).toBe(6);
  });

  it('an idle gateway adds no delay: a lone call is written at once, however long the wait could be', async () => {
    // A wait would last longer than the test may run.
    const { writes, sink } = countedSink({ maxLingerMs: 600_000, lingerShare: 1 });
    const project = 'prj_batch_idle';
    for (let i = 0; i < 3; i++) await sink.write([{ ...entry(project), duration_ms: 600_000 }]);
    expect(writes).toEqual([1, 1, 1]);
    expect(await count(project)).toBe(3);
  });

  it('fails every call of a failed write, and never confirms a record that is not stored', async () => {
    const sink = createBatchingAuditSink(createHttpAuditSink(client()), { metrics: createNoopMetrics() });
    const project = 'prj_batch_kill';
    const calls = Array.from({ length: 300 }, (_, i) => {
      const e = entry(project);
      return (async () => {
        // The store goes away while calls are being written.
        if (i === 150) await db.query('ALTER TABLE audit_records RENAME TO audit_records_gone');
        try {
          await sink.write([e]);
          return { id: e.id, confirmed: true };
        } catch {
          return { id: e.id, confirmed: false };
        }
      })();
    });
    const outcomes = await Promise.all(calls);
    await db.query('ALTER TABLE audit_records_gone RENAME TO audit_records');
    const stored = new Set(
      (
        await db.query<{ id: string }>('SELECT id::text AS id FROM audit_records WHERE project_id = $1', [
          project,
        ])
      ).rows.map((r) => r.id),
    );
    const confirmed = outcomes.filter((o) => o.confirmed);
    expect(outcomes.some((o) => !o.confirmed)).toBe(true);
    for (const o of confirmed) expect(stored.has(o.id)).toBe(true);
  });
});
