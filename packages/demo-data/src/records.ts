// The records the generator emits, in the core's ingest format (DESIGN.md section 6).
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

export interface DemoFrame {
  function: string;
  file: string;
  line?: number;
  in_app?: boolean;
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

/** Not an ingest record: who the generated users are, for tests and the console. */
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
}
