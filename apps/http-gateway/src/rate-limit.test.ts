import { silentLogger } from '@svc/logger';
import { createNoopMetrics, createPromMetrics } from '@svc/metrics';
import type { Principal } from '@svc/tool-kit';
import { httpErrorHandler } from '@svc/tool-server/http-errors';
import express from 'express';
import request from 'supertest';
import { createLimits, createTokenBucketLimiter, type LimitsConfig } from './rate-limit';

const principal = (tokenId: string, projectId: string, orgId: string | null = null): Principal => ({
  tokenId,
  userId: null,
  orgId,
  projectId,
  capabilities: new Set(),
});

/** An app whose only route waits until released, behind the limits. */
function app(config: LimitsConfig, metrics = createNoopMetrics()) {
  const limits = createLimits(config, () => Date.now(), metrics);
  let release!: () => void;
  let gate = new Promise<void>((r) => (release = r));
  let arrived = 0;
  const a = express();
  a.use(express.json());
  a.use((req, res, next) => {
    res.locals.principal = principal(
      String(req.get('x-token')),
      String(req.get('x-project')),
      req.get('x-org') ?? null,
    );
    next();
  });
  a.post(
    '/call',
    limits.middleware((body) => (Array.isArray(body) ? body.length : 1)),
    async (_req, res) => {
      arrived++;
      await gate;
      res.json({ ok: true });
    },
  );
  a.use(httpErrorHandler(silentLogger));
  return {
    app: a,
    /** Resolves once `n` calls in all have passed the limits (they hold their places). */
    async arrivals(n: number) {
      while (arrived < n) await new Promise((r) => setTimeout(r, 5));
    },
    open() {
      release();
      gate = new Promise<void>((r) => (release = r));
    },
  };
}

/** Sent at once (a supertest request starts only when awaited). */
const call = (a: express.Express, token: string, project: string, body: unknown = {}, org?: string) =>
  request(a)
    .post('/call')
    .set('x-token', token)
    .set('x-project', project)
    .set(org ? { 'x-org': org } : {})
    .send(body as object)
    .then((r) => r);

const roomy: LimitsConfig = {
  perTokenPerMinute: 1000,
  perProjectPerMinute: 1000,
  concurrentPerToken: 2,
  concurrentPerProject: 3,
  concurrentPerOrg: 100,
};

describe('limits per token and per project', () => {
  it('bounds the calls of one token in progress, then of one project across its tokens', async () => {
    const { app: a, open, arrivals } = app(roomy);
    const held = [call(a, 't1', 'p1').then((r) => r.status), call(a, 't1', 'p1').then((r) => r.status)];
    await arrivals(2);
    const third = await call(a, 't1', 'p1');
    expect(third.status).toBe(429);
    expect(third.body.message).toBe('Too many calls of this token in progress; retry when one has finished.');
    expect(third.headers['retry-after']).toBe('1');
    held.push(call(a, 't2', 'p1').then((r) => r.status));
    await arrivals(3);
    const projectFull = await call(a, 't3', 'p1');
    expect(projectFull.status).toBe(429);
    expect(projectFull.body.message).toContain('this project in progress');
    // Another project is not affected.
    const other = call(a, 't9', 'p2').then((r) => r.status);
    await arrivals(4);
    open();
    expect(await Promise.all([...held, other])).toEqual([200, 200, 200, 200]);
    // Finished calls give their places back.
    const again = call(a, 't1', 'p1');
    await arrivals(5);
    open();
    expect((await again).status).toBe(200);
  });

  it("bounds the calls of one org in progress across its projects; another org's are not affected", async () => {
    const { app: a, open, arrivals } = app({ ...roomy, concurrentPerOrg: 4 });
    const held = [
      call(a, 't1', 'p1', {}, 'org_a'),
      call(a, 't2', 'p1', {}, 'org_a'),
      call(a, 't3', 'p2', {}, 'org_a'),
      call(a, 't4', 'p2', {}, 'org_a'),
    ].map((c) => c.then((r) => r.status));
    await arrivals(4);
    const orgFull = await call(a, 't5', 'p3', {}, 'org_a');
    expect(orgFull.status).toBe(429);
    expect(orgFull.body.message).toBe(
      'Too many calls of this organization in progress; retry when one has finished.',
    );
    const other = call(a, 't6', 'p9', {}, 'org_b').then((r) => r.status);
    await arrivals(5);
    open();
    expect(await Promise.all([...held, other])).toEqual([200, 200, 200, 200, 200]);
  });

  it('counts every message of a batch, against the rate and the calls in progress', async () => {
    const {
      app: a,
      open,
      arrivals,
    } = app({
      ...roomy,
      perTokenPerMinute: 5,
      concurrentPerToken: 10,
      concurrentPerProject: 10,
    });
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i }));
    const four = call(a, 't1', 'p1', batch(4));
    await arrivals(1);
    open();
    expect((await four).status).toBe(200);
    const two = await call(a, 't1', 'p1', batch(2));
    expect(two.status).toBe(429);
    expect(two.body.message).toBe('Too many calls for this token; retry later.');
  });

  it('limits a project’s rate across all its tokens', async () => {
    const {
      app: a,
      open,
      arrivals,
    } = app({
      ...roomy,
      perTokenPerMinute: 100,
      perProjectPerMinute: 3,
      concurrentPerToken: 10,
      concurrentPerProject: 10,
    });
    const ok = [call(a, 't1', 'p1'), call(a, 't2', 'p1'), call(a, 't3', 'p1')];
    await arrivals(3);
    open();
    for (const r of await Promise.all(ok)) expect(r.status).toBe(200);
    const refused = await call(a, 't4', 'p1');
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe('Too many calls for this project; retry later.');
    // A token refused by its project's limit is not charged for it.
    const own = createTokenBucketLimiter(1, () => 0);
    expect(own.take('k')).toBe(0);
    expect(own.take('k')).toBeGreaterThan(0);
  });

  it('makes its state visible in metrics', async () => {
    const metrics = createPromMetrics({ defaultMetrics: false });
    const { app: a, open, arrivals } = app({ ...roomy, concurrentPerToken: 1 }, metrics);
    const held = call(a, 't1', 'p1');
    await arrivals(1);
    await call(a, 't1', 'p1');
    const text = await metrics.render();
    expect(text).toMatch(/svc_gateway_limit_refusals_total\{scope="token",kind="concurrency"\} 1/);
    expect(text).toMatch(/svc_gateway_calls_in_progress 1/);
    expect(text).toMatch(/svc_gateway_rate_buckets\{scope="project"\} 1/);
    open();
    await held;
  });
});
