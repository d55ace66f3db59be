import { busyHoldings, readGauge, readHoldings } from './holdings';
import { bindEach, createNoopMetrics, createPromMetrics } from './metrics';

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

  it('bound instruments count like unbound ones and show on the next render', async () => {
    const m = createPromMetrics({ defaultMetrics: false, prefix: 't_' });
    const calls = m.counter('calls_total', 'calls', ['tool', 'outcome']);
    const ok = calls.bind({ tool: 'log.search', outcome: 'ok' });
    const incs = [1, 1, 3];
    for (const n of incs) ok.inc(n);
    calls.inc({ tool: 'log.search', outcome: 'ok' });
    calls.bind({ tool: 'log.search', outcome: 'error' });
    const inProgress = m.gauge('in_progress', 'now').bind({});
    inProgress.set(4);
    inProgress.set(2);
    m.histogram('latency_seconds', 'latency', ['tool']).bind({ tool: 'a' }).observe(0.003);
    const first = await m.render();
    expect(first).toContain(
      `t_calls_total{tool="log.search",outcome="ok"} ${incs.reduce((a, b) => a + b) + 1}`,
    );
    // A label set bound but never counted is not exposed (as with unbound counters).
    expect(first).not.toContain('outcome="error"');
    expect(first).toContain('t_in_progress 2');
    expect(first).toContain('t_latency_seconds_bucket{le="0.005",tool="a"} 1');
    ok.inc();
    inProgress.set(0);
    const second = await m.render();
    expect(second).toContain(
      `t_calls_total{tool="log.search",outcome="ok"} ${incs.reduce((a, b) => a + b) + 2}`,
    );
    expect(second).toContain('t_in_progress 0');
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
    m.counter('a', 'a').bind({ x: 1 }).inc();
    m.gauge('c', 'c').bind({}).set(1);
    m.histogram('b', 'b').bind({}).observe(1);
    expect(await m.render()).toBe('');
  });
});

describe('bindEach', () => {
  it('counts each label set as the unbound counter and histogram would, binding each set once', async () => {
    const bound = createPromMetrics({ defaultMetrics: false, prefix: 't_' });
    const plain = createPromMetrics({ defaultMetrics: false, prefix: 't_' });
    const calls = [
      ['log.recent', 'mcp', 'ok'],
      ['log.recent', 'rest', 'ok'],
      ['log.recent', 'mcp', 'ok'],
      ['crash.get', 'mcp', 'not_found'],
      // Values that would meet if they were joined into one key.
      ['a', 'b.c', 'ok'],
      ['a.b', 'c', 'ok'],
    ] as const;
    const names = ['tool', 'transport', 'status'];
    const counter = bound.counter('calls_total', 'calls', names);
    const binds: unknown[] = [];
    const counterOf = bindEach(
      {
        bind: (labels) => {
          binds.push(labels);
          return counter.bind(labels);
        },
      },
      names,
    );
    const latencyOf = bindEach(bound.histogram('latency_seconds', 'latency', ['tool']), ['tool']);
    for (const [i, [tool, transport, status]] of calls.entries()) {
      counterOf(tool, transport, status).inc();
      latencyOf(tool).observe(i / 1000);
      plain.counter('calls_total', 'calls', names).inc({ tool, transport, status });
      plain.histogram('latency_seconds', 'latency', ['tool']).observe({ tool }, i / 1000);
    }
    expect(binds).toHaveLength(new Set(calls.map((c) => c.join('/'))).size);
    expect(await bound.render()).toBe(await plain.render());
  });
});

describe('holding gauges', () => {
  it('lists every holding gauge in the holdings index, and reads which are not idle', async () => {
    const m = createPromMetrics({ defaultMetrics: false, prefix: 't_' });
    const held = m.holding('bytes_held', 'bytes', []).bind({});
    let streams = 2;
    m.holdingOf('streams_open', 'streams', () => streams);
    m.gauge('sessions', 'not a holding', []).set({}, 7);
    held.set(10);
    let text = await m.render();
    expect(readHoldings(text)).toEqual({ t_bytes_held: 10, t_streams_open: 2 });
    expect(busyHoldings(text)).toEqual({ t_bytes_held: 10, t_streams_open: 2 });
    expect(readGauge(text, 't_sessions')).toBe(7);
    held.set(0);
    streams = 0;
    text = await m.render();
    expect(busyHoldings(text)).toEqual({});
  });

  it('sums the series of a labelled holding gauge, and reads one never set as 0', async () => {
    const m = createPromMetrics({ defaultMetrics: false, prefix: 't_' });
    const shed = m.holding('shed', 'per backend', ['backend']);
    m.holding('never_set', 'labelled, no series yet', ['backend']);
    shed.set({ backend: 'core' }, 2);
    shed.set({ backend: 'recall' }, 1);
    expect(readHoldings(await m.render())).toEqual({ t_shed: 3, t_never_set: 0 });
  });
});
