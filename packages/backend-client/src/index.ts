export {
  type BackendClient,
  type BackendClientOptions,
  createBackendClient,
  DEFAULT_TIMEOUT_MS,
} from './backend-client';
export { type BreakerOptions, DEFAULT_BREAKER } from './breaker-options';
export type { BreakerState } from './breakers';
export {
  type AvailabilityListener,
  type BackendHealth,
  createHealthMonitor,
  type HealthMonitor,
  type HealthMonitorOptions,
  type MonitoredBackend,
  UNLIST_AFTER_FAILED_PROBES,
} from './health-monitor';
export type { RequestOptions } from './request-options';
export {
  type BackendClientMaker,
  backendClientMaker,
  createToolBackends,
  type ToolBackends,
  type ToolBackendsOptions,
} from './tool-backends';
export { isValidTraceparent, newTraceparent, outboundTraceparent } from './traceparent';
