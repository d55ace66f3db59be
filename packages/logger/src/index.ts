export { createLogger, type LoggerOptions, type PinoLogger, silentLogger } from './logger';
