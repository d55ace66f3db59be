import type { Claim } from '@svc/tools-verify';
import { COMPARISON_WORDS, compareVersions, count, gradeHolds, holds, num, pct } from './compare';
import type { Evidence } from './evidence';

export type Verdict = 'supported' | 'refuted' | 'inconclusive';
export interface Finding {
  verdict: Verdict;
  reason: string;
}

export interface Access {
  /** The org has vis_trace: span data may be used as evidence. */
  traces: boolean;
}

const decided = (ok: boolean, reason: string): Finding => ({ verdict: ok ? 'supported' : 'refuted', reason });
const inconclusive = (reason: string): Finding => ({ verdict: 'inconclusive', reason });

/** The most events or items a single evidence call reads; the checker says so when that is not all. */
export const EVIDENCE_LIMIT = 1000;

interface Window {
  from: string;
  to: string;
}

/** Checks one parsed claim by calling the core's tools; every call lands in `evidence`. */
export function checkClaim(claim: Claim, evidence: Evidence, access: Access): Promise<Finding> {
  switch (claim.kind) {
    case 'crash_recurrence':
      return 'date' in claim.since
        ? recurrenceSinceDate(claim, claim.since.date, evidence)
        : recurrenceSinceVersion(claim, claim.since.version, evidence);
    case 'operation_latency':
    case 'operation_error_rate':
      return access.traces
        ? operation(claim, evidence)
        : Promise.resolve(
            inconclusive(
              'Operation latency and error rates come from traces, and this organization has no trace access (vis_trace).',
            ),
          );
    case 'metric_percentile':
      return metricPercentile(claim, evidence);
    case 'release_crash_free':
    case 'release_grade':
      return release(claim, evidence);
    case 'funnel_conversion':
      return funnel(claim, evidence);
    case 'user_crashed':
      return userCrashed(claim, evidence);
  }
}

type Recurrence = Extract<Claim, { kind: 'crash_recurrence' }>;

async function recurrenceSinceDate(claim: Recurrence, date: string, evidence: Evidence): Promise<Finding> {
  const r = await evidence.ask<{
    recurred: boolean;
    count_since: number;
    first_since: string | null;
    last_seen: string | null;
    total: number;
  }>('crash.recurrence', { signature: claim.signature, since: date }, (a) =>
    a.total === 0
      ? `No event of signature ${claim.signature} is stored.`
      : `${a.count_since} of ${a.total} events of ${claim.signature} are after ${date}` +
        (a.first_since ? ` (first ${a.first_since}, last ${a.last_seen})` : ` (last ${a.last_seen})`) +
        '.',
  );
  if (r.total === 0)
    return inconclusive(
      `No crash with signature ${claim.signature} is stored, so a fixed issue cannot be told from an unknown one.`,
    );
  return decided(
    r.recurred === claim.recurred,
    r.recurred
      ? `The issue recurred: ${count(r.count_since, 'event')} after ${date}, the first at ${r.first_since}.`
      : `No event of the issue after ${date}; the last was at ${r.last_seen}.`,
  );
}

interface CrashItem {
  event_id: string;
  timestamp: string;
  app_version: string;
}

async function recurrenceSinceVersion(
  claim: Recurrence,
  version: string,
  evidence: Evidence,
): Promise<Finding> {
  // "After version v" counts v itself: a crash in the fix release means the fix did not hold.
  const later = (items: CrashItem[]) => items.filter((c) => compareVersions(c.app_version, version) >= 0);
  const r = await evidence.ask<{ items: CrashItem[]; has_more: boolean }>(
    'crash.by_signature',
    { signature: claim.signature, limit: EVIDENCE_LIMIT },
    (a) => {
      const hits = later(a.items);
      const versions = [...new Set(hits.map((c) => c.app_version))].sort(compareVersions);
      return a.items.length === 0
        ? `No event of signature ${claim.signature} is stored.`
        : `Of the ${a.has_more ? 'newest ' : ''}${count(a.items.length, 'event')}, ${hits.length} ${hits.length === 1 ? 'is' : 'are'} in version ${version} or later` +
            (hits.length > 0
              ? ` (${versions.join(', ')}; newest ${hits[0]!.event_id} at ${hits[0]!.timestamp})`
              : '') +
            '.';
    },
  );
  if (r.items.length === 0)
    return inconclusive(
      `No crash with signature ${claim.signature} is stored, so a fixed issue cannot be told from an unknown one.`,
    );
  const hits = later(r.items);
  if (hits.length > 0)
    return decided(
      claim.recurred,
      `The issue recurred in version ${version} or later: ${count(hits.length, 'event')}, the newest in ${hits[0]!.app_version} at ${hits[0]!.timestamp}.`,
    );
  if (r.has_more)
    return inconclusive(
      `None of the newest ${r.items.length} events is in version ${version} or later, but older events were not read.`,
    );
  return decided(
    !claim.recurred,
    `All ${r.items.length} events of the issue are from versions before ${version}.`,
  );
}

type OperationClaim = Extract<Claim, { kind: 'operation_latency' | 'operation_error_rate' }>;
interface OperationRow {
  operation: string;
  count: number;
  spans: number;
  p50_ms: number;
  p99_ms: number;
  error_rate: number;
}

async function operation(claim: OperationClaim, evidence: Evidence): Promise<Finding> {
  const parameters = { days: claim.days, limit: 10_000 };
  const find = (rows: OperationRow[]) => rows.find((o) => o.operation === claim.operation);
  const measure = (row: OperationRow) =>
    claim.kind === 'operation_error_rate'
      ? { label: 'error rate', value: row.error_rate, text: pct(row.error_rate) }
      : {
          label: claim.percentile,
          value: row[`${claim.percentile}_ms`],
          text: `${num(row[`${claim.percentile}_ms`])} ms`,
        };
  const a = await evidence.ask<{ window: Window; operations: OperationRow[]; has_more: boolean }>(
    'trace.aggregate',
    parameters,
    (answer) => {
      const row = find(answer.operations);
      if (!row)
        return `No span of operation "${claim.operation}" among ${answer.operations.length} operations from ${answer.window.from} to ${answer.window.to}.`;
      const m = measure(row);
      return `"${claim.operation}": ${m.label} ${m.text} over ${num(row.count)} spans restored for sampling (${row.spans} stored), ${answer.window.from} to ${answer.window.to}.`;
    },
  );
  const row = find(a.operations);
  if (!row) {
    const busiest = a.operations.slice(0, 5).map((o) => `"${o.operation}"`);
    return inconclusive(
      `No span of operation "${claim.operation}" in the last ${claim.days} days` +
        (busiest.length > 0 ? `; the busiest operations are ${busiest.join(', ')}.` : '.'),
    );
  }
  const m = measure(row);
  const threshold = claim.kind === 'operation_error_rate' ? claim.rate : claim.ms;
  const thresholdText = claim.kind === 'operation_error_rate' ? pct(claim.rate) : `${num(claim.ms)} ms`;
  const ok = holds(m.value, claim.comparison, threshold);
  return decided(
    ok,
    `The ${m.label} of "${claim.operation}" is ${m.text}, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${thresholdText}.`,
  );
}

type MetricClaim = Extract<Claim, { kind: 'metric_percentile' }>;
interface MetricRow {
  name: string;
  unit: string | null;
  count: number;
  p50: number;
  p95: number;
  p99: number;
}

async function metricPercentile(claim: MetricClaim, evidence: Evidence): Promise<Finding> {
  const find = (rows: MetricRow[]) => rows.find((m) => m.name === claim.metric);
  const unit = (row: MetricRow) => (row.unit ? ` ${row.unit}` : '');
  const a = await evidence.ask<{ window: Window; metrics: MetricRow[] }>(
    'apm.stats',
    { days: claim.days },
    (answer) => {
      const row = find(answer.metrics);
      return row
        ? `${claim.metric}: ${claim.percentile} ${num(row[claim.percentile])}${unit(row)} over ${row.count} samples, ${answer.window.from} to ${answer.window.to}.`
        : `No sample of metric ${claim.metric}; metrics with samples: ${answer.metrics.map((m) => m.name).join(', ') || 'none'}.`;
    },
  );
  const row = find(a.metrics);
  if (!row) return inconclusive(`No sample of metric ${claim.metric} in the last ${claim.days} days.`);
  const observed = row[claim.percentile];
  const ok = holds(observed, claim.comparison, claim.value);
  return decided(
    ok,
    `The ${claim.percentile} of ${claim.metric} is ${num(observed)}${unit(row)}, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${num(claim.value)}.`,
  );
}

type ReleaseClaim = Extract<Claim, { kind: 'release_crash_free' | 'release_grade' }>;
interface ReleaseRow {
  version: string;
  found: boolean;
  sessions: number;
  crash_free_session_rate: number | null;
  score: number | null;
  grade: 'A' | 'B' | 'C' | 'D' | 'F' | null;
}

async function release(claim: ReleaseClaim, evidence: Evidence): Promise<Finding> {
  const a = await evidence.ask<{ window: Window; releases: ReleaseRow[] }>(
    'release.health',
    { version: claim.version, days: claim.days },
    (answer) => {
      const r = answer.releases[0];
      if (!r?.found)
        return `No session or metric sample of version ${claim.version} from ${answer.window.from} to ${answer.window.to}.`;
      const rate =
        r.crash_free_session_rate === null
          ? 'no crash-free rate'
          : `crash-free sessions ${pct(r.crash_free_session_rate)}`;
      const grade = r.grade === null ? 'no grade' : `score ${num(r.score!)}, grade ${r.grade}`;
      return `Version ${claim.version}: ${count(r.sessions, 'session')}, ${rate}, ${grade}.`;
    },
  );
  const r = a.releases[0];
  if (!r?.found) return inconclusive(`Version ${claim.version} has no data in the last ${claim.days} days.`);
  if (claim.kind === 'release_crash_free') {
    if (r.crash_free_session_rate === null)
      return inconclusive(`Version ${claim.version} has no sessions in the last ${claim.days} days.`);
    const ok = holds(r.crash_free_session_rate, claim.comparison, claim.rate);
    return decided(
      ok,
      `Version ${claim.version} has ${pct(r.crash_free_session_rate)} crash-free sessions, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${pct(claim.rate)}.`,
    );
  }
  if (r.grade === null)
    return inconclusive(`Version ${claim.version} has no data to grade in the last ${claim.days} days.`);
  const ok = gradeHolds(r.grade, claim.comparison, claim.grade);
  return decided(
    ok,
    `Version ${claim.version} grades ${r.grade}, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${claim.grade}.`,
  );
}

type FunnelClaim = Extract<Claim, { kind: 'funnel_conversion' }>;
interface FunnelStep {
  event_name: string;
  users: number;
  conversion_from_previous: number | null;
}

async function funnel(claim: FunnelClaim, evidence: Evidence): Promise<Finding> {
  const a = await evidence.ask<{ window_hours: number; steps: FunnelStep[] }>(
    'analytics.funnel',
    { steps: [claim.from, claim.to], days: claim.days },
    (answer) => {
      const [first, second] = answer.steps;
      return first!.users === 0
        ? `No user did "${claim.from}" in the last ${claim.days} days.`
        : `${second!.users} of ${first!.users} users who did "${claim.from}" did "${claim.to}" within ${answer.window_hours} h: ${pct(second!.conversion_from_previous!)}.`;
    },
  );
  const second = a.steps[1]!;
  if (second.conversion_from_previous === null)
    return inconclusive(`No user did "${claim.from}" in the last ${claim.days} days.`);
  const ok = holds(second.conversion_from_previous, claim.comparison, claim.rate);
  return decided(
    ok,
    `Conversion from "${claim.from}" to "${claim.to}" is ${pct(second.conversion_from_previous)}, ${ok ? '' : 'not '}${COMPARISON_WORDS[claim.comparison]} ${pct(claim.rate)}.`,
  );
}

type UserClaim = Extract<Claim, { kind: 'user_crashed' }>;
interface Channel {
  total: number;
}

async function userCrashed(claim: UserClaim, evidence: Evidence): Promise<Finding> {
  const user = await evidence.ask<{ found: boolean; crashes: Channel; sessions: Channel }>(
    'user.detail',
    { user_id: claim.user_id, limit: 1 },
    (a) =>
      a.found
        ? `User ${claim.user_id}: ${count(a.crashes.total, 'crash event')} over ${count(a.sessions.total, 'session')}.`
        : `Nothing is stored for user ${claim.user_id}.`,
  );
  if (!user.found) return inconclusive(`Nothing is stored for user ${claim.user_id}.`);
  if (claim.session_id === null) {
    const crashed = user.crashes.total > 0;
    return decided(
      crashed === claim.crashed,
      crashed
        ? `User ${claim.user_id} has ${count(user.crashes.total, 'crash event')}.`
        : `User ${claim.user_id} has no crash event.`,
    );
  }
  const sessionId = claim.session_id;
  const session = await evidence.ask<{
    found: boolean;
    session: { status: string } | null;
    user_ids: string[];
    crashes: Channel;
  }>('session.detail', { session_id: sessionId, limit: 1 }, (a) =>
    a.found
      ? `Session ${sessionId} of ${a.user_ids.join(', ') || 'no user'}: status ${a.session?.status ?? 'unknown'}, ${count(a.crashes.total, 'crash event')}.`
      : `Nothing is stored for session ${sessionId}.`,
  );
  if (!session.found) return inconclusive(`Nothing is stored for session ${sessionId}.`);
  if (!session.user_ids.includes(claim.user_id))
    return inconclusive(`Session ${sessionId} is not a session of user ${claim.user_id}.`);
  const crashed = session.crashes.total > 0 || session.session?.status === 'crashed';
  return decided(
    crashed === claim.crashed,
    crashed
      ? `Session ${sessionId} of user ${claim.user_id} crashed (status ${session.session?.status ?? 'unknown'}, ${count(session.crashes.total, 'crash event')}).`
      : `Session ${sessionId} of user ${claim.user_id} did not crash (status ${session.session?.status ?? 'unknown'}).`,
  );
}
