export {
  type BackendAvailability,
  createGatewayApp,
  type GatewayApp,
  type GatewayAppConfig,
  type GatewayDeps,
} from './app';
export { bodyLimitBytes, type GatewayConfig, loadConfig } from './config';
export { DEFAULT_SESSION_LIMITS, type McpSessionLimits } from './mcp-sessions';
export { createMetricsApp } from './metrics-app';
export { DEFAULT_BREAKER, type WiredGateway, type WireOptions, wireGateway } from './wiring';
