import { createNoopMetrics } from '@svc/metrics';
import { collectingExporter } from '@svc/sdk-core/testing';
import { createSelfTracer, SELF_TRACE_MIDDLEWARE } from '@svc/self-trace';
import type { Express } from 'express';
import request from 'supertest';
import { createIdentityApp } from './app';
import { type Harness, recordingLogger, SECRET, startHarness } from './testing/harness';

// Identity traced by itself (SVC_SELF_TRACE_PROJECT): a server span per request continuing the
// caller's traceparent (the gateway's introspection client span), none for the gateways'
// invalidation stream and its acknowledgements. Off: no middleware at all.

const exporter = collectingExporter();
const { spans } = exporter;

let h: Harness;
let traced: Express;
const layers = (app: Express) => app.router.stack.map((l: { name: string }) => l.name);

beforeAll(async () => {
  h = await startHarness();
  traced = createIdentityApp({
    db: h.db,
    internalSecret: SECRET,
    logger: recordingLogger([]),
    metrics: createNoopMetrics(),
    checkpoints: h.checkpoints,
    tracer: createSelfTracer({
      service: 'identity',
      project: 'prj_stack',
      internalSecret: SECRET,
      exporter,
    })!,
  });
});
afterAll(async () => {
  await h.close();
});

describe('identity traced by itself', () => {
  it('installs no middleware without a tracer', () => {
    expect(layers(h.app)).not.toContain(SELF_TRACE_MIDDLEWARE);
    expect(layers(traced)).toContain(SELF_TRACE_MIDDLEWARE);
  });

  it('makes the introspection a server span under the caller client span', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await request(traced)
      .post('/internal/v1/introspect')
      .set('X-Internal-Secret', SECRET)
      .set('traceparent', traceparent)
      .send({ token: 'svc_pat_not_a_real_token_0000000000000000' })
      .expect(200);
    expect(spans).toEqual([
      expect.objectContaining({
        service: 'identity',
        kind: 'server',
        operation: 'POST /internal/v1/introspect',
        trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
        parent_span_id: '00f067aa0ba902b7',
        status: 'ok',
      }),
    ]);
  });

  it("does not trace the gateways' invalidation leases", async () => {
    spans.length = 0;
    await request(traced)
      .post('/internal/v1/invalidations/ack')
      .set('X-Internal-Secret', SECRET)
      .send({ subscriber_id: 'nobody', seq: 0 });
    await request(traced).get('/healthz');
    expect(spans).toEqual([]);
  });
});
