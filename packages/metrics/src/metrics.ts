import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

// Metrics go through this interface so code never imports prom-client directly and tests can
// pass the no-op. Instruments are created once per name and reused.
//
// `bind(labels)` is for hot paths: prom-client builds a key from the label object on every call
// (about 2% of the gateway's CPU per call when a counter and a gauge took labels per request). A
// bound counter or gauge keeps its value in a plain number and hands it to prom-client when the
// metrics are rendered, so a call costs an addition.
export type Labels = Record<string, string | number>;

export interface BoundCounter {
  inc(value?: number): void;
}
export interface BoundHistogram {
  observe(value: number): void;
}
export interface BoundGauge {
  set(value: number): void;
}

export interface CounterMetric {
  inc(labels?: Labels, value?: number): void;
  /** The counter of one label set, for a hot path (bind once, outside it). */
  bind(labels: Labels): BoundCounter;
}
export interface HistogramMetric {
  observe(labels: Labels, value: number): void;
  bind(labels: Labels): BoundHistogram;
}
export interface GaugeMetric {
  set(labels: Labels, value: number): void;
  bind(labels: Labels): BoundGauge;
}

export interface Metrics {
  counter(name: string, help: string, labelNames?: readonly string[]): CounterMetric;
  histogram(name: string, help: string, labelNames?: readonly string[], buckets?: number[]): HistogramMetric;
  gauge(name: string, help: string, labelNames?: readonly string[]): GaugeMetric;
  /**
   * A gauge of something taken and given back (bytes reserved, slots, sessions, waiters): a gauge
   * whose idle value is 0. It is also listed in `<prefix>holdings{gauge="<name>"}`, so a check
   * after faults (holdings.ts) finds every such gauge without knowing their names.
   */
  holding(name: string, help: string, labelNames?: readonly string[]): GaugeMetric;
  /**
   * A holding gauge whose value is read when the metrics are rendered (nothing to update on the
   * hot path): for counts a store already knows, such as sessions in use.
   */
  holdingOf(name: string, help: string, read: () => number): void;
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
  // What bound instruments hold, handed to prom-client when it collects (before every render).
  const flushes = new Map<string, (() => void)[]>();
  const flushesOf = (name: string) => {
    let list = flushes.get(name);
    if (!list) {
      list = [];
      flushes.set(name, list);
    }
    return list;
  };
  let holdings: Gauge | undefined;
  // prom-client calls `collect` on the metric, whose `name` carries the prefix.
  function collect(this: unknown) {
    const metricName = (this as { name: string }).name.slice(prefix.length);
    for (const flush of flushes.get(metricName) ?? []) flush();
  }
  function listHolding(name: string) {
    holdings ??= new Gauge({
      name: `${prefix}${HOLDINGS_INDEX}`,
      help: 'One series per gauge of things taken and given back; the gauge reads 0 when idle',
      labelNames: ['gauge'],
      registers: [registry],
    });
    holdings.set({ gauge: prefix + name }, 1);
  }
  function gauge(name: string, help: string, labelNames: readonly string[] = []): GaugeMetric {
    const g = once(
      name,
      () => new Gauge({ name: prefix + name, help, labelNames, registers: [registry], collect }),
    );
    return {
      set: (labels, value) => g.set(labels, value),
      bind(labels) {
        const bound = { ...labels };
        let current: number | undefined;
        flushesOf(name).push(() => {
          if (current !== undefined) g.set(bound, current);
        });
        return {
          set(value) {
            current = value;
          },
        };
      },
    };
  }

  return {
    counter(name, help, labelNames = []) {
      const c = once(
        name,
        () => new Counter({ name: prefix + name, help, labelNames, registers: [registry], collect }),
      );
      return {
        inc: (labels = {}, value = 1) => c.inc(labels, value),
        bind(labels) {
          const bound = { ...labels };
          let pending = 0;
          let counted = false;
          flushesOf(name).push(() => {
            if (!counted) return;
            c.inc(bound, pending);
            pending = 0;
          });
          return {
            inc(value = 1) {
              pending += value;
              counted = true;
            },
          };
        },
      };
    },
    histogram(name, help, labelNames = [], buckets = DEFAULT_BUCKETS_SECONDS) {
      const h = once(
        name,
        () => new Histogram({ name: prefix + name, help, labelNames, buckets, registers: [registry] }),
      );
      return {
        observe: (labels, value) => h.observe(labels, value),
        // prom-client has no way to add a bucket's counts at once: a bound histogram observes as
        // the unbound one does, its label object made once.
        bind(labels) {
          const child = h.labels({ ...labels });
          return { observe: (value) => child.observe(value) };
        },
      };
    },
    gauge,
    holding(name, help, labelNames = []) {
      listHolding(name);
      return gauge(name, help, labelNames);
    },
    holdingOf(name, help, read) {
      listHolding(name);
      once(
        name,
        () =>
          new Gauge({
            name: prefix + name,
            help,
            registers: [registry],
            collect() {
              this.set(read());
            },
          }),
      );
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/** What a scrape endpoint needs of metrics. */
export type Exposition = Pick<Metrics, 'render' | 'contentType'>;

/**
 * Several registries as one exposition (their prefixes differ): every service of a one-process
 * stack on one metrics port, each holding gauge listed in its own registry's index.
 */
export function mergedExposition(registries: readonly Metrics[]): Exposition {
  return {
    contentType: registries[0]?.contentType ?? 'text/plain; version=0.0.4; charset=utf-8',
    render: async () => (await Promise.all(registries.map((m) => m.render()))).join('\n'),
  };
}

/** The index of holding gauges (Metrics.holding), under each registry's prefix. */
export const HOLDINGS_INDEX = 'holdings';

/**
 * The bound instrument of each label set, bound the first time its values are met: for a hot path
 * whose labels are known only per call but take few values (a tool name, a transport, an outcome).
 * The values must come from a bounded set, as every label's must; each set is kept for good.
 */
export function bindEach<Bound>(
  metric: { bind(labels: Labels): Bound },
  labelNames: readonly string[],
): (...values: string[]) => Bound {
  // One map level per label: no key is built from the values, so no two label sets can share one.
  type Level = Map<string, Level | Bound>;
  const root: Level = new Map();
  return (...values) => {
    let level = root;
    for (let i = 0; i < labelNames.length - 1; i++) {
      const value = values[i] ?? '';
      let next = level.get(value) as Level | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(value, next);
      }
      level = next;
    }
    const last = values[labelNames.length - 1] ?? '';
    let instrument = level.get(last) as Bound | undefined;
    if (instrument === undefined) {
      instrument = metric.bind(Object.fromEntries(labelNames.map((name, i) => [name, values[i] ?? ''])));
      level.set(last, instrument);
    }
    return instrument;
  };
}

const noopBound = { inc() {}, observe() {}, set() {} };
const noop = { ...noopBound, bind: () => noopBound };

/** For tests and for processes that expose no metrics. */
export function createNoopMetrics(): Metrics {
  return {
    counter: () => noop,
    histogram: () => noop,
    gauge: () => noop,
    holding: () => noop,
    holdingOf: () => {},
    render: async () => '',
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
  };
}
