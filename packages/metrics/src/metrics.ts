import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

// Metrics go through this interface so code never imports prom-client directly and tests can
// pass the no-op. Instruments are created once per name and reused.
export type Labels = Record<string, string | number>;

export interface CounterMetric {
  inc(labels?: Labels, value?: number): void;
}
export interface HistogramMetric {
  observe(labels: Labels, value: number): void;
}
export interface GaugeMetric {
  set(labels: Labels, value: number): void;
}

export interface Metrics {
  counter(name: string, help: string, labelNames?: readonly string[]): CounterMetric;
  histogram(name: string, help: string, labelNames?: readonly string[], buckets?: number[]): HistogramMetric;
  gauge(name: string, help: string, labelNames?: readonly string[]): GaugeMetric;
  /** Prometheus text exposition. */
  render(): Promise<string>;
  readonly contentType: string;
}

const DEFAULT_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createPromMetrics(options: { prefix?: string; defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  const prefix = options.prefix ?? 'svc_';
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix });
  const made = new Map<string, unknown>();
  function once<T>(name: string, make: () => T): T {
    const existing = made.get(name);
    if (existing) return existing as T;
    const created = make();
    made.set(name, created);
    return created;
  }
  return {
    counter(name, help, labelNames = []) {
      const c = once(
        name,
        () => new Counter({ name: prefix + name, help, labelNames, registers: [registry] }),
      );
      return { inc: (labels = {}, value = 1) => c.inc(labels, value) };
    },
    histogram(name, help, labelNames = [], buckets = DEFAULT_BUCKETS_SECONDS) {
      const h = once(
        name,
        () => new Histogram({ name: prefix + name, help, labelNames, buckets, registers: [registry] }),
      );
      return { observe: (labels, value) => h.observe(labels, value) };
    },
    gauge(name, help, labelNames = []) {
      const g = once(name, () => new Gauge({ name: prefix + name, help, labelNames, registers: [registry] }));
      return { set: (labels, value) => g.set(labels, value) };
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

const noop = { inc() {}, observe() {}, set() {} };

/** For tests and for processes that expose no metrics. */
export function createNoopMetrics(): Metrics {
  return {
    counter: () => noop,
    histogram: () => noop,
    gauge: () => noop,
    render: async () => '',
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
  };
}
