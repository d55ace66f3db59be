import { randomUUID } from 'node:crypto';
import { crashSignature } from '../../symbolication/crash-signature';
import type { RecordType, ValidBatch } from '../schemas';

// Validated records -> table rows. The project comes from the ingest key, never from a record.
// An absent optional field stays undefined: the insert stores the column's default for it ('' or
// {}; NULL where the column is Nullable), and leaves out a column no row of the insert has
// (compactRows), less for the engine to parse. Each row is one object literal: spreading a shared
// object into it (`{...p, ...}`) makes V8 build every row the slow way, many times the cost.
// Times go in as epoch milliseconds: every time column of these tables is DateTime64(3), which
// reads an integer as ticks of its scale (ClickHouse documents this for inserts), and no text is
// formatted for them.

type Row = Record<string, unknown>;

export function rowsOf(batch: ValidBatch, projectId: string, nowMs: number): Record<RecordType, Row[]> {
  return {
    logs: batch.logs.map((r) => ({
      project_id: projectId,
      timestamp: r.timestamp,
      level: r.level,
      message: r.message,
      source: r.source,
      platform: r.platform,
      app_version: r.app_version,
      user_id: r.user_id,
      session_id: r.session_id,
      device_id: r.device_id,
      trace_id: r.trace_id,
      span_id: r.span_id,
      event_id: r.event_id,
      attributes: r.attributes,
    })),
    crashes: batch.crashes.map((r) => ({
      project_id: projectId,
      timestamp: r.timestamp,
      event_id: r.event_id,
      signature: r.signature ?? crashSignature(r.error_type, r.frames),
      error_type: r.error_type,
      message: r.message,
      frames: JSON.stringify(r.frames),
      breadcrumbs: JSON.stringify(
        r.breadcrumbs.map((b) => ({ ...b, timestamp: new Date(b.timestamp).toISOString() })),
      ),
      platform: r.platform,
      app_version: r.app_version,
      device_os: r.device_os,
      user_id: r.user_id,
      session_id: r.session_id,
    })),
    spans: batch.spans.map((r) => ({
      project_id: projectId,
      start_time: r.start_time,
      trace_id: r.trace_id,
      span_id: r.span_id,
      parent_span_id: r.parent_span_id,
      kind: r.kind,
      status: r.status,
      operation: r.operation,
      service: r.service,
      duration_ms: r.duration_ms,
      attributes: r.attributes,
      user_id: r.user_id,
      session_id: r.session_id,
      sample_rate: r.sample_rate,
    })),
    metrics: batch.metrics.map((r) => ({
      project_id: projectId,
      name: r.name,
      timestamp: r.timestamp,
      value: r.value,
      unit: r.unit,
      platform: r.platform,
      app_version: r.app_version,
      session_id: r.session_id,
      user_id: r.user_id,
      attributes: r.attributes,
    })),
    events: batch.events.map((r) => ({
      project_id: projectId,
      event_name: r.event_name,
      timestamp: r.timestamp,
      user_id: r.user_id,
      session_id: r.session_id,
      platform: r.platform,
      app_version: r.app_version,
      properties: JSON.stringify(r.properties ?? {}),
    })),
    feedback: batch.feedback.map((r) => ({
      project_id: projectId,
      timestamp: r.timestamp,
      feedback_id: r.feedback_id ?? randomUUID(),
      user_id: r.user_id,
      session_id: r.session_id,
      message: r.message,
      rating: r.rating,
      platform: r.platform,
      app_version: r.app_version,
    })),
    sessions: batch.sessions.map((r) => ({
      project_id: projectId,
      session_id: r.session_id,
      user_id: r.user_id,
      started_at: r.started_at,
      ended_at: r.ended_at,
      status: r.status,
      platform: r.platform,
      app_version: r.app_version,
      ingested_at: nowMs,
    })),
    experiments: batch.experiments.map((r) => ({
      project_id: projectId,
      experiment_key: r.experiment_key,
      goal_event: r.goal_event,
      variants: r.variants,
      baseline: r.baseline,
      updated_at: nowMs,
    })),
  };
}
