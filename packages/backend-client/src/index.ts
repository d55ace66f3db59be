export {
  type BackendClient,
  type BackendClientOptions,
  type BreakerOptions,
  type BreakerState,
  createBackendClient,
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
