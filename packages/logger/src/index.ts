export { createLogger, createSilentLogger, type LoggerOptions, type PinoLogger } from './logger';
