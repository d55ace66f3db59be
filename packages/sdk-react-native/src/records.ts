// The records an app sends, as the core's ingest API takes them (docs/ingest.md, "Record types").

export interface CrashFrame {
  function: string;
  file: string;
  line?: number;
  column?: number;
  in_app?: boolean;
}

export interface Breadcrumb {
  /** Epoch milliseconds. */
  timestamp: number;
  category: string;
  message: string;
  level?: string;
}

export interface CrashRecord {
  event_id: string;
  timestamp: number;
  error_type: string;
  message: string;
  /** Top of the stack first. */
  frames: CrashFrame[];
  /** Oldest first. */
  breadcrumbs: Breadcrumb[];
  platform: string;
  app_version: string;
  device_os: string;
  user_id?: string;
  session_id?: string;
}

export type SessionStatus = 'ok' | 'crashed' | 'anr' | 'abnormal';

export interface SessionRecord {
  session_id: string;
  user_id: string;
  started_at: number;
  ended_at?: number;
  status: SessionStatus;
  platform: string;
  app_version: string;
}

export interface MetricRecord {
  timestamp: number;
  name: string;
  value: number;
  unit?: string;
  platform: string;
  app_version: string;
  session_id?: string;
  user_id?: string;
  attributes?: Record<string, string | number | boolean>;
}

export interface EventRecord {
  timestamp: number;
  event_name: string;
  user_id: string;
  session_id?: string;
  platform: string;
  app_version: string;
  properties?: Record<string, unknown>;
}

export interface FeedbackRecord {
  feedback_id: string;
  timestamp: number;
  user_id: string;
  session_id?: string;
  message: string;
  rating?: number;
  platform: string;
  app_version: string;
}
