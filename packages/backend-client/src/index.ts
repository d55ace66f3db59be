export {
  type BackendClient,
  type BackendClientOptions,
  type BreakerState,
  createBackendClient,
  DEFAULT_TIMEOUT_MS,
  type RequestOptions,
} from './backend-client';
export { type BreakerOptions, DEFAULT_BREAKER } from './breaker-options';
export {
  type AvailabilityListener,
  type BackendHealth,
  createHealthMonitor,
  type HealthMonitor,
  type HealthMonitorOptions,
  type MonitoredBackend,
} from './health-monitor';
export {
  type BackendClientMaker,
  backendClientMaker,
  createToolBackends,
  type ToolBackends,
  type ToolBackendsOptions,
} from './tool-backends';
export { isValidTraceparent, newTraceparent, outboundTraceparent } from './traceparent';
