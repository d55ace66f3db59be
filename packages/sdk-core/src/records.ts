/** A span as the core's ingest API takes it (docs/ingest.md, "spans"). */
export interface SpanRecord {
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  kind: 'server' | 'client' | 'internal' | 'producer' | 'consumer';
  status: 'ok' | 'error' | 'unset';
  operation: string;
  service?: string;
  /** Epoch milliseconds, or ISO 8601. */
  start_time: number | string;
  duration_ms: number;
  attributes?: Record<string, string>;
  user_id?: string;
  session_id?: string;
  sample_rate?: number;
}

/** A log line as the core's ingest API takes it (docs/ingest.md, "logs"). */
export interface LogRecord {
  /** Epoch milliseconds, or ISO 8601. */
  timestamp: number | string;
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
  message: string;
  source: 'backend' | 'device';
  trace_id?: string;
  span_id?: string;
  user_id?: string;
  session_id?: string;
  attributes?: Record<string, string>;
}
