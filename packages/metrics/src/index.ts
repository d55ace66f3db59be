export {
  createNoopMetrics,
  createPromMetrics,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type Labels,
  type Metrics,
} from './metrics';
