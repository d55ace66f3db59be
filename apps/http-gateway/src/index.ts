export {
  type BackendAvailability,
  createGatewayApp,
  type GatewayApp,
  type GatewayAppConfig,
  type GatewayDeps,
} from './app';
export { bodyLimitBytes, type GatewayConfig, loadGatewayConfig } from './config';
export { DEFAULT_SESSION_LIMITS, type McpSessionLimits } from './mcp-sessions';
export { createMetricsApp } from './metrics-app';
export { type WiredGateway, type WireOptions, wireGateway } from './wiring';
