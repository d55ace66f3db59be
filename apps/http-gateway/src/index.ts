export {
  type BackendAvailability,
  createGatewayApp,
  type GatewayApp,
  type GatewayAppConfig,
  type GatewayDeps,
} from './app';
export { createHttpAuditSink } from './audit-sink';
export { bodyLimitBytes, type GatewayConfig, loadConfig } from './config';
export { createIdentityClient, type IdentityClient, type IntrospectOptions } from './identity-client';
export { DEFAULT_SESSION_LIMITS, type McpSessionLimits } from './mcp-sessions';
export { createMetricsApp } from './metrics-app';
