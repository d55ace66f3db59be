import { allTools } from '@svc/tool-catalog';
import type { AnyCoreTool } from '../tools/core-tool';
import { coreQueries } from '../tools/registry';
import type { CoreHarness } from './core-harness';

// Every tool the core serves, called for one project with inputs that find given ids: its
// documented example with the ids swapped in, the ids alone and no input at all (those that are
// valid). A caller checks each answer is 200 and passes the tool's output schema, the check the
// gateway makes before a client sees it.

/** The ids and names a project's rows carry, swapped into each tool's example. */
export interface ToolIds {
  user_id: string;
  session_id: string;
  trace_id: string;
  event_id: string;
  signature: string;
  experiment_key: string;
  /** A metric name (apm.search). */
  metric: string;
  /** An event name (track.recent, funnel steps, experiment goals). */
  event_name: string;
  version: string;
}

export interface ToolCall {
  tool: AnyCoreTool;
  input: Record<string, unknown>;
}

function withIds(tool: AnyCoreTool, example: Record<string, unknown>, ids: ToolIds): Record<string, unknown> {
  const input: Record<string, unknown> = { ...example };
  for (const key of ['user_id', 'session_id', 'trace_id', 'event_id', 'signature', 'experiment_key'] as const)
    if (key in input) input[key] = ids[key];
  if ('name' in input) input.name = tool.name.startsWith('apm.') ? ids.metric : ids.event_name;
  if ('versions' in input) input.versions = [ids.version];
  if ('steps' in input) input.steps = ['app_open', ids.event_name];
  return input;
}

/** The calls for every core tool: its example with `ids`, the ids alone, `{}`; each only when valid. */
export function everyToolCall(ids: ToolIds): ToolCall[] {
  const examples = new Map(allTools.map((t) => [t.name, t.example as Record<string, unknown>]));
  const calls: ToolCall[] = [];
  for (const tool of coreQueries) {
    const example = withIds(tool, examples.get(tool.name) ?? {}, ids);
    const idsOnly = Object.fromEntries(
      Object.entries(example).filter(([key]) => key in ids || ['name', 'versions', 'steps'].includes(key)),
    );
    const seen = new Set<string>();
    for (const input of [example, idsOnly, {}]) {
      const text = JSON.stringify(input);
      if (seen.has(text) || !tool.input.safeParse(input).success) continue;
      seen.add(text);
      calls.push({ tool, input });
    }
  }
  return calls;
}

export interface ToolFailure {
  tool: string;
  input: Record<string, unknown>;
  status: number;
  problem: string;
}

/**
 * Calls every core tool for `projectId` and returns the calls that did not answer 200 with an
 * answer its output schema accepts (empty when all did).
 */
export async function failingToolCalls(
  h: CoreHarness,
  projectId: string,
  ids: ToolIds,
): Promise<ToolFailure[]> {
  const failures: ToolFailure[] = [];
  for (const { tool, input } of everyToolCall(ids)) {
    const res = await h.callTool(projectId, tool.name, input);
    if (res.status !== 200) {
      failures.push({ tool: tool.name, input, status: res.status, problem: res.text.slice(0, 300) });
      continue;
    }
    const parsed = tool.output.safeParse(res.body);
    if (!parsed.success)
      failures.push({
        tool: tool.name,
        input,
        status: res.status,
        problem: JSON.stringify(parsed.error.issues.slice(0, 3)).slice(0, 500),
      });
  }
  return failures;
}
