import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBackendClient } from '@svc/backend-client';
import {
  type CachingIdentityClient,
  createCachingIdentityClient,
  createIdentityClient,
  createInvalidationSubscriber,
  type IdentityClient,
  type InvalidationSubscriber,
  type InvalidationTarget,
} from '@svc/identity-client';
import { silentLogger } from '@svc/logger';
import { createNoopMetrics, createPromMetrics, type Metrics } from '@svc/metrics';
import type { Postgres } from '@svc/postgres';
import { memoryPostgres } from '@svc/postgres/testing/memory';
import {
  type CheckpointStore,
  createIdentityApp,
  createInvalidationHub,
  type InvalidationHub,
  migrateIdentity,
} from './index';
import { openThrowawayCheckpointStore } from './testing/checkpoints';

// @svc/identity-client's token cache against this service (PGlite in memory, real HTTP), with short
// heartbeats. The lease is long: a lease that ran out between two calls on a loaded machine would
// turn a cache hit into a miss; a lost stream ends the lease at once whatever its length.
const SECRET = 'token-cache-test-secret-0123';
const TIMING = { heartbeatMs: 100, leaseMs: 30_000, pollMs: 5 };
const metrics = createNoopMetrics();
/** The hub's own metrics: whether a revoke ended on the gateways' acknowledgements or by force. */
const hubMetrics = createPromMetrics({ defaultMetrics: false, prefix: 'hub_' });

let db: Postgres;
let checkpoints: CheckpointStore;
let hub: InvalidationHub;
let server: Server;
let url: string;
let orgId: string;
let projectId: string;

async function admin(path: string, body: unknown, method = 'POST') {
  const res = await fetch(`${url}/internal/v1/admin${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-internal-secret': SECRET },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as Record<string, string>;
}

const newToken = async () =>
  (await admin('/tokens', { project_id: projectId })) as { token: string; token_id: string };

/** Counts the introspections that reach identity, and can hold one in flight. */
function counting(inner: IdentityClient) {
  let calls = 0;
  let gate: Promise<void> | undefined;
  let atGate = () => {};
  return {
    client: {
      async introspect(token, options) {
        calls++;
        const answer = await inner.introspect(token, options);
        if (gate) {
          atGate();
          await gate;
        }
        return answer;
      },
    } satisfies IdentityClient,
    calls: () => calls,
    /** Holds the next answers until `release`; resolves once one has been read from identity. */
    hold(release: Promise<void>): Promise<void> {
      gate = release;
      return new Promise<void>((resolve) => {
        atGate = resolve;
      });
    },
  };
}

function gateway(cacheMetrics: Metrics = metrics) {
  const backend = createBackendClient({
    name: 'identity',
    baseUrl: url,
    internalSecret: SECRET,
    timeoutMs: 2000,
    metrics,
    logger: silentLogger,
  });
  const counter = counting(createIdentityClient(backend, silentLogger));
  let subscriber: InvalidationSubscriber;
  const cache: CachingIdentityClient = createCachingIdentityClient(counter.client, () => subscriber, {
    metrics: cacheMetrics,
  });
  // The cache as the target, telling a test when an eviction has reached it.
  const waitingForEviction: (() => void)[] = [];
  const target: InvalidationTarget = {
    evict(event) {
      cache.evict(event);
      for (const resolve of waitingForEviction.splice(0)) resolve();
    },
    clear: () => cache.clear(),
  };
  const nextEviction = () => new Promise<void>((resolve) => waitingForEviction.push(resolve));
  subscriber = createInvalidationSubscriber({
    identityUrl: url,
    internalSecret: SECRET,
    target,
    logger: silentLogger,
    metrics,
    retryMs: 20,
  });
  subscriber.start();
  const active = async (token: string) => (await cache.introspect(token, { requestId: 'r' })).active;
  return { cache, subscriber, counter, active, backend, nextEviction };
}

beforeAll(async () => {
  db = await memoryPostgres();
  await migrateIdentity(db);
  hub = createInvalidationHub({ db, logger: silentLogger, metrics: hubMetrics, timing: TIMING });
  checkpoints = await openThrowawayCheckpointStore();
  const app = createIdentityApp({
    db,
    internalSecret: SECRET,
    logger: silentLogger,
    metrics,
    invalidations: hub,
    checkpoints,
  });
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const boot = await admin('/bootstrap', { org_name: 'o', project_name: 'p', user_email: 'a@example.com' });
  orgId = boot.org_id!;
  projectId = boot.project_id!;
});

afterAll(async () => {
  await hub.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await checkpoints.close();
  await db.close();
});

describe('token cache with lease-based invalidation', () => {
  it('answers from the cache while the lease is held, and a revoke is seen by the very next call', async () => {
    const g = gateway();
    try {
      expect(await g.subscriber.whenLive()).toBe(true);
      const { token, token_id } = await newToken();
      expect(await g.active(token)).toBe(true);
      expect(await g.active(token)).toBe(true);
      expect(g.counter.calls()).toBe(1);
      await admin(`/tokens/${token_id}/revoke`, {});
      expect(await g.active(token)).toBe(false);
      expect(g.counter.calls()).toBe(2);
    } finally {
      await g.subscriber.stop();
    }
  });

  it('counts each lookup by outcome: the first a miss, the rest hits', async () => {
    const counted = createPromMetrics({ defaultMetrics: false, prefix: 't_' });
    const g = gateway(counted);
    try {
      expect(await g.subscriber.whenLive()).toBe(true);
      const { token } = await newToken();
      const calls = 4;
      for (let i = 0; i < calls; i++) expect(await g.active(token)).toBe(true);
      const text = await counted.render();
      expect(text).toContain('t_token_cache_lookups_total{outcome="miss"} 1');
      expect(text).toContain(`t_token_cache_lookups_total{outcome="hit"} ${calls - g.counter.calls()}`);
      expect(g.counter.calls()).toBe(1);
    } finally {
      await g.subscriber.stop();
    }
  });

  it('drops an org’s tokens when a capability is switched', async () => {
    const g = gateway();
    try {
      await g.subscriber.whenLive();
      const { token } = await newToken();
      await g.active(token);
      expect(g.cache.size()).toBe(1);
      await admin(`/orgs/${orgId}/capabilities/vis_trace`, { enabled: true }, 'PUT');
      expect(g.cache.size()).toBe(0);
      const answer = await g.cache.introspect(token, { requestId: 'r' });
      expect(answer.active && answer.capabilities).toEqual(['vis_trace']);
    } finally {
      await g.subscriber.stop();
    }
  });

  it('does not cache an answer that was in flight when an invalidation arrived', async () => {
    const g = gateway();
    try {
      await g.subscriber.whenLive();
      const { token, token_id } = await newToken();
      let release!: () => void;
      const answered = g.counter.hold(new Promise<void>((r) => (release = r)));
      const inFlight = g.active(token);
      await answered; // read from identity before the revoke, still in flight
      const evicted = g.nextEviction();
      const revoked = admin(`/tokens/${token_id}/revoke`, {});
      await evicted; // the revoke's invalidation arrived while the answer was in flight
      release();
      expect(await inFlight).toBe(true); // read before the revoke committed: concurrent with it
      await revoked;
      expect(g.cache.size()).toBe(0);
      expect(await g.active(token)).toBe(false);
    } finally {
      await g.subscriber.stop();
    }
  });

  it('stops trusting the cache as soon as the stream is lost, and resubscribes from empty', async () => {
    const g = gateway();
    try {
      await g.subscriber.whenLive();
      const { token } = await newToken();
      await g.active(token);
      await g.active(token);
      expect(g.counter.calls()).toBe(1);
      await hub.close(); // identity ends every stream, as on a restart
      const lost = Date.now();
      // A condition under the house ceiling (2 min): a loaded machine may take long to notice.
      while (g.subscriber.leaseValid() && Date.now() - lost < 120_000)
        await new Promise((r) => setTimeout(r, 5));
      expect(g.subscriber.leaseValid()).toBe(false);
      await g.active(token);
      expect(g.counter.calls()).toBe(2);
      expect(await g.subscriber.whenLive()).toBe(true);
      expect(g.cache.size()).toBe(0);
      await g.active(token);
      await g.active(token);
      expect(g.counter.calls()).toBe(3);
    } finally {
      await g.subscriber.stop();
    }
  });

  it('makes a revoke wait for every subscribed gateway, ending on their acknowledgements, not a lease', async () => {
    const a = gateway();
    const b = gateway();
    try {
      await Promise.all([a.subscriber.whenLive(), b.subscriber.whenLive()]);
      expect(hub.streamCount()).toBe(2);
      const { token, token_id } = await newToken();
      await a.active(token);
      await b.active(token);
      await admin(`/tokens/${token_id}/revoke`, {});
      // Both gateways acknowledged: no lease had to be ended (the wait past a lease does that).
      const hubText = await hubMetrics.render();
      expect(hubText).toMatch(/hub_identity_invalidation_wait_seconds_count \d+/);
      expect(hubText).not.toMatch(/hub_identity_invalidation_forced_expiries_total [1-9]/);
      expect(await a.active(token)).toBe(false);
      expect(await b.active(token)).toBe(false);
    } finally {
      await a.subscriber.stop();
      await b.subscriber.stop();
    }
  });
});
