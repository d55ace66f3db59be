import { type Logger as PinoLogger, pino } from 'pino';

export type { PinoLogger };

export interface LoggerOptions {
  name: string;
  level?: string;
  /** stdio server: stdout carries MCP only, so logs must go to stderr (fd 2). */
  destination?: 'stdout' | 'stderr';
  /**
   * Fields added to every line, computed when it is written: self-tracing passes `traceFields`
   * (@svc/self-trace), so a line written inside a span carries its trace_id and span_id.
   */
  mixin?: () => object;
}

// Structured JSON logs. Authorization headers and tokens are redacted wherever they appear.
export function createLogger(options: LoggerOptions): PinoLogger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      ...(options.mixin ? { mixin: options.mixin } : {}),
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          'token',
          '*.token',
          'secret',
          '*.secret',
        ],
        censor: '[redacted]',
      },
    },
    options.destination === 'stderr' ? process.stderr : process.stdout,
  );
}

/** The one logger that writes nothing: tests, and defaults where no logger was given. */
export const silentLogger: PinoLogger = pino({ level: 'silent' });
