export {
  type CounterMetric,
  createNoopMetrics,
  createPromMetrics,
  type GaugeMetric,
  type HistogramMetric,
  type Labels,
  type Metrics,
} from './metrics';
