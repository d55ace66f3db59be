// The records the generator emits, in the core's ingest format (docs/ingest.md).
// Timestamps are ISO 8601 strings. The core's zod ingest schemas are the authority; its tests
// validate this generator's output against them.

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
export type Platform = 'ios' | 'android' | 'web';

export interface DemoLog {
  timestamp: string;
  level: LogLevel;
  message: string;
  source: 'backend' | 'device';
  platform?: Platform;
  app_version?: string;
  user_id?: string;
  session_id?: string;
  device_id?: string;
  trace_id?: string;
  span_id?: string;
  event_id?: string;
  attributes?: Record<string, string>;
}

/**
 * A stack frame as the SDK sends it. Web frames point into the minified bundle (line and
 * 1-based column, as browsers report them); native frames carry `address`, the hex offset of the
 * instruction inside `module` (what Breakpad FUNC/line records index), and a placeholder
 * function name `<module>+<address>` until symbolicated.
 */
export interface DemoFrame {
  function: string;
  file: string;
  line?: number;
  column?: number;
  in_app?: boolean;
  address?: string;
  module?: string;
}

export interface DemoBreadcrumb {
  timestamp: string;
  category: string;
  message: string;
  level?: string;
}

export interface DemoCrash {
  event_id: string;
  timestamp: string;
  error_type: string;
  message: string;
  /** Top of the stack (the crashing frame) first. */
  frames: DemoFrame[];
  breadcrumbs: DemoBreadcrumb[];
  /** Sent by some SDKs; absent otherwise, and the core computes it at ingest. */
  signature?: string;
  platform: Platform;
  app_version: string;
  device_os: string;
  user_id?: string;
  session_id?: string;
}

export interface DemoSession {
  session_id: string;
  user_id: string;
  started_at: string;
  ended_at?: string;
  status: 'ok' | 'crashed' | 'anr' | 'abnormal';
  platform: Platform;
  app_version: string;
}

export interface DemoEvent {
  timestamp: string;
  event_name: string;
  user_id: string;
  session_id?: string;
  platform?: Platform;
  app_version?: string;
  properties?: Record<string, string | number | boolean>;
}

export interface DemoFeedback {
  feedback_id?: string;
  timestamp: string;
  user_id: string;
  session_id?: string;
  message: string;
  rating?: number;
  platform?: Platform;
  app_version?: string;
}

/** A performance sample: `app_start_ms` once per session, `fps` and `memory_mb` along it. */
export interface DemoMetric {
  timestamp: string;
  name: 'app_start_ms' | 'fps' | 'memory_mb';
  value: number;
  unit: 'ms' | 'fps' | 'MB';
  platform: Platform;
  app_version: string;
  session_id: string;
  user_id: string;
}

/** One span of a distributed trace (W3C ids: 32 and 16 lowercase hex). */
export interface DemoSpan {
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  kind: 'client' | 'server' | 'internal';
  status: 'ok' | 'error' | 'unset';
  operation: string;
  service: string;
  start_time: string;
  duration_ms: number;
  attributes?: Record<string, string>;
  user_id?: string;
  session_id?: string;
  /** The head-sampling rate of the service that kept the span (absent: 1). */
  sample_rate?: number;
}

/** An A/B test definition (`experiments` ingest record); exposures are `$exposure` events. */
export interface DemoExperiment {
  experiment_key: string;
  goal_event: string;
  variants: string[];
  baseline?: string;
}

/** A debug file to upload before crashes are ingested, so they symbolicate on ingest. */
export interface DemoDebugFile {
  kind: 'sourcemap' | 'breakpad';
  platform: Platform;
  name: string;
  content: string;
}

/**
 * Not an ingest record: who the storied users are (those with logs, events, samples and traces in
 * every session), for tests and the console. Crowd users (crowd.ts) are not listed.
 */
export interface DemoUser {
  user_id: string;
  device_id: string;
  platform: Platform;
  device_os: string;
  first_seen: string;
}

export interface DemoBatch {
  users: DemoUser[];
  sessions: DemoSession[];
  logs: DemoLog[];
  crashes: DemoCrash[];
  events: DemoEvent[];
  feedback: DemoFeedback[];
  metrics: DemoMetric[];
  spans: DemoSpan[];
}
