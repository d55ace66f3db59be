import { createNoopMetrics, createPromMetrics } from './metrics';

describe('prom metrics', () => {
  it('exposes counters and histograms in Prometheus text format under the prefix', async () => {
    const m = createPromMetrics({ defaultMetrics: false, prefix: 't_' });
    m.counter('calls_total', 'calls', ['tool']).inc({ tool: 'log.search' });
    m.counter('calls_total', 'calls', ['tool']).inc({ tool: 'log.search' }, 2);
    m.histogram('latency_seconds', 'latency', ['tool']).observe({ tool: 'log.search' }, 0.003);
    m.gauge('breaker_open', 'open', ['backend']).set({ backend: 'core' }, 1);
    const text = await m.render();
    expect(text).toContain('t_calls_total{tool="log.search"} 3');
    expect(text).toContain('t_latency_seconds_bucket{le="0.005",tool="log.search"} 1');
    expect(text).toContain('t_breaker_open{backend="core"} 1');
  });

  it('keeps registries apart so two apps in one process do not collide', async () => {
    const a = createPromMetrics({ defaultMetrics: false });
    const b = createPromMetrics({ defaultMetrics: false });
    a.counter('x_total', 'x').inc();
    expect(await b.render()).not.toContain('svc_x_total 1');
  });

  it('no-op metrics accept every call and render nothing', async () => {
    const m = createNoopMetrics();
    m.counter('a', 'a').inc({ x: 1 });
    m.histogram('b', 'b').observe({}, 1);
    expect(await m.render()).toBe('');
  });
});
