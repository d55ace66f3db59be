export { busyHoldings, readGauge, readHoldings } from './holdings';
export {
  type LoopHold,
  type LoopHoldMonitor,
  type LoopHoldMonitorOptions,
  monitorLoopHolds,
} from './loop-hold';
export {
  type BoundCounter,
  type BoundGauge,
  type BoundHistogram,
  bindEach,
  type CounterMetric,
  createNoopMetrics,
  createPromMetrics,
  type Exposition,
  type GaugeMetric,
  type HistogramMetric,
  HOLDINGS_INDEX,
  type Labels,
  type Metrics,
  mergedExposition,
} from './metrics';
export { type MetricsService, metricsPrefix } from './service-prefix';
