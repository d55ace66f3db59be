export { createGatewayApp, type GatewayApp } from './app';
export { bodyLimitBytes, type GatewayConfig, loadGatewayConfig } from './config';
export type { BackendAvailability, GatewayAppConfig, GatewayDeps } from './gateway-deps';
export { DEFAULT_SESSION_LIMITS, type McpSessionLimits } from './mcp-sessions';
export { createMetricsApp } from './metrics-app';
export { type WiredGateway, type WireOptions, wireGateway } from './wiring';
