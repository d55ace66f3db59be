import { createPromMetrics } from '@svc/metrics';
import request from 'supertest';
import { createMetricsApp } from './metrics-app';
import { type Harness, startHarness } from './testing/gateway-harness';

describe('metrics app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('serves the Prometheus text of the gateway metrics on its own app, not on the gateway', async () => {
    const { token } = h.identity.issue();
    await request(h.url).post('/v1/tools/log.recent').set('Authorization', `Bearer ${token}`).send({});
    const res = await request(createMetricsApp(h.metrics)).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toContain('svc_tool_calls_total{tool="log.recent",transport="rest",status="ok"} 1');
    expect(res.text).toContain('svc_backend_requests_total{backend="identity",method="POST",outcome="ok"}');
    expect(res.text).toContain('svc_backend_breaker_state{backend="core"} 0');
    expect((await request(h.url).get('/metrics')).status).toBe(404);
  });

  it('answers other paths with 404', async () => {
    const res = await request(createMetricsApp(createPromMetrics({ defaultMetrics: false }))).get('/');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });
});
