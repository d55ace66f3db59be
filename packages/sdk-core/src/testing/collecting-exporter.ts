import type { Exporter } from '../exporter-types';
import type { LogRecord, SpanRecord } from '../records';

/** An exporter that keeps what it is given, for tests that read the spans a tracer reported. */
export function collectingExporter(
  endpoint = 'http://collector.invalid',
): Exporter & { spans: SpanRecord[]; logs: LogRecord[] } {
  const spans: SpanRecord[] = [];
  const logs: LogRecord[] = [];
  return {
    spans,
    logs,
    endpoint,
    addSpan: (span) => void spans.push(span),
    addLog: (log) => void logs.push(log),
    flush: async () => undefined,
    shutdown: async () => undefined,
    stats: () => ({ sent: 0, dropped: 0, queued: 0 }),
  };
}
