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
