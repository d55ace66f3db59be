export {
  findRepositoryRoot,
  INTERNAL_SECRET_FILE,
  internalSecretOf,
  resolveDataDir,
} from './data-dir';
export {
  ConfigError,
  flag,
  httpUrl,
  internalSecret,
  logLevel,
  optionalUrl,
  parseEnv,
  port,
  portOf,
} from './parse-env';
export {
  runService,
  type ServiceDefinition,
  type ServiceListener,
  type ServiceLog,
  type ServiceProcess,
  type WiredService,
} from './run-service';
export { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, withServerTimeouts } from './server-timeouts';
export { trustedProxies } from './trusted-proxies';
