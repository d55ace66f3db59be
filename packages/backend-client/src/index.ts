export {
  type BackendClient,
  type BackendClientOptions,
  type BreakerOptions,
  type BreakerState,
  createBackendClient,
  DEFAULT_BREAKER,
  DEFAULT_TIMEOUT_MS,
  type RequestOptions,
} from './backend-client';
export {
  type AvailabilityListener,
  type BackendHealth,
  createHealthMonitor,
  type HealthMonitor,
  type HealthMonitorOptions,
  type MonitoredBackend,
} from './health-monitor';
export { isValidTraceparent, newTraceparent, outboundTraceparent } from './traceparent';
