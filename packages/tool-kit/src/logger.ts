/**
 * The logging surface handlers and bindings need. @svc/logger's pino loggers satisfy it, and its
 * `silentLogger` is the one to pass where nothing should be logged (tests).
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}
