export {
  type LoopHold,
  type LoopHoldMonitor,
  type LoopHoldMonitorOptions,
  monitorLoopHolds,
} from './loop-hold';
export {
  type CounterMetric,
  createNoopMetrics,
  createPromMetrics,
  type GaugeMetric,
  type HistogramMetric,
  type Labels,
  type Metrics,
} from './metrics';
