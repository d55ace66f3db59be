import type { ToolAnswer } from '../tool-calls';

// The overview's panels: each one a question about the project answered by the same tools MCP
// clients call (through the gateway, as the person), drawn by the tool's view. What a panel says
// in words is read off the tool's answer: a field as it came, or the answer's own items sorted or
// filtered; nothing is computed that the tool did not return.

export const PANEL_IDS = ['releases', 'crashes', 'operations'] as const;
export type PanelId = (typeof PANEL_IDS)[number];

/** How far back every panel looks: the tools' own default window. */
export const OVERVIEW_DAYS = 14;
/** Release health of this many versions (release.health takes up to 10). */
export const RECENT_VERSIONS = 5;
/** An issue first seen this many days before the end of the window is new. */
export const NEW_ISSUE_DAYS = 7;
/** Top issues and slowest operations listed in words. */
export const LISTED = 5;
const DAY_MS = 86_400_000;

export interface ToolCallOf {
  tool: string;
  input: Record<string, unknown>;
}

export interface PanelAnswer extends ToolCallOf {
  answer: ToolAnswer;
}

/** Calls one tool as the signed-in person for the project (through the gateway). */
export type CallTool = (tool: string, input: Record<string, unknown>) => Promise<ToolAnswer>;

/** The panel's calls in order; the last is the one drawn and linked (the runner, the assistant). */
export interface PanelRun {
  id: PanelId;
  calls: PanelAnswer[];
}

/** The app versions an answer of analytics.dimensions names, most recent (highest) first. */
export function recentVersions(result: unknown, count = RECENT_VERSIONS): string[] {
  const values =
    (result as { dimensions?: { app_version?: { values?: { value: string }[] } } }).dimensions?.app_version
      ?.values ?? [];
  return values
    .map((v) => v.value)
    .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))
    .slice(0, count);
}

interface Signature {
  signature: string;
  error_type: string;
  count: number;
  share: number;
  first_seen: string;
  first_app_version: string;
}

export interface CrashStats {
  window: { from: string; to: string };
  total: number;
  affected_users: number;
  signature_count: number;
  signatures: Signature[];
}

/** crash.stats' issues first seen in the last NEW_ISSUE_DAYS of its window, newest first. */
export function newIssues(stats: CrashStats, days = NEW_ISSUE_DAYS): Signature[] {
  const since = Date.parse(stats.window.to) - days * DAY_MS;
  return stats.signatures
    .filter((s) => Date.parse(s.first_seen) >= since)
    .sort((a, b) => b.first_seen.localeCompare(a.first_seen) || a.signature.localeCompare(b.signature));
}

export interface Operation {
  operation: string;
  count: number;
  p50_ms: number;
  p99_ms: number;
  error_rate: number;
}

/** trace.aggregate's operations by p99, slowest first (then by name). */
export function slowestOperations(result: { operations: Operation[] }, count = LISTED): Operation[] {
  return [...result.operations]
    .sort((a, b) => b.p99_ms - a.p99_ms || a.operation.localeCompare(b.operation))
    .slice(0, count);
}

async function callOf(call: CallTool, tool: string, input: Record<string, unknown>): Promise<PanelAnswer> {
  return { tool, input, answer: await call(tool, input) };
}

/** Runs one panel's tool calls; a refusal or failure is the panel's answer, never a thrown error. */
export async function runPanel(id: PanelId, call: CallTool): Promise<PanelRun> {
  if (id === 'crashes') return { id, calls: [await callOf(call, 'crash.stats', { days: OVERVIEW_DAYS })] };
  if (id === 'operations')
    return { id, calls: [await callOf(call, 'trace.aggregate', { days: OVERVIEW_DAYS, limit: 100 })] };
  // Which versions are recent: the ones the app's events name, the highest first.
  const dimensions = await callOf(call, 'analytics.dimensions', { days: OVERVIEW_DAYS });
  if (!dimensions.answer.ok) return { id, calls: [dimensions] };
  const versions = recentVersions(dimensions.answer.result);
  if (versions.length === 0) return { id, calls: [dimensions] };
  const health = await callOf(call, 'release.health', { versions: versions.join(','), days: OVERVIEW_DAYS });
  return { id, calls: [dimensions, health] };
}
