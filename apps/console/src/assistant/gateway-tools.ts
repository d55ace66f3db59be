import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { dynamicTool, type JSONSchema7, jsonSchema, type ToolSet } from 'ai';
import type { TurnBudget } from './turn-budget';
import { callBudgetSpent } from './turn-budget';
import { asUntrustedData } from './untrusted';

// The assistant is an MCP client of this stack's gateway (protocol revision 2026-07-28), with a
// token of minutes for the signed-in person and project: its calls are authenticated, gated by
// capability, rate limited and audited like any client's. It offers the model only the tools the
// gateway marks read-only: it has no tool that writes.

export const MCP_REVISION = '2026-07-28';
/** A result kept for the page's "JSON" view at most this long (the model's share is budgeted apart). */
const MAX_KEPT_RESULT_CHARS = 200_000;
const CALL_FAILED = 'The gateway did not answer this call.';

/** One tool call of a turn as the page shows it and the conversation keeps it. */
export interface ToolStep {
  /** The call's number in the turn (the `[#N]` of claims), from 1. */
  n: number;
  tool: string;
  input: unknown;
  status: 'running' | 'ok' | 'error' | 'not_called';
  /** Characters of the result sent to the model, and whether it was cut to the budget. */
  sentChars: number;
  cut: boolean;
  /** The result (structured content, else text) for the page, when not too large to keep. */
  result?: unknown;
  /** The gateway's error message (its own wording, never a backend's). */
  error?: string;
}

export interface GatewayTools {
  tools: ToolSet;
  /** The read tools by group (`crash` -> [crash_issues, ...]): what the person can read now. */
  groups: [string, string[]][];
  serverAdvice: string | undefined;
  close(): Promise<void>;
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

/** Model-facing names: providers accept [a-zA-Z0-9_-] only, so `crash.issues` is `crash_issues`. */
export const modelToolName = (tool: string) => tool.replace(/[^a-zA-Z0-9_-]/g, '_');

function resultOf(answer: { content?: unknown; structuredContent?: unknown }): {
  text: string;
  kept: unknown;
} {
  const texts = Array.isArray(answer.content)
    ? answer.content.flatMap((c: { type?: string; text?: unknown }) =>
        c?.type === 'text' && typeof c.text === 'string' ? [c.text] : [],
      )
    : [];
  const text =
    answer.structuredContent !== undefined ? JSON.stringify(answer.structuredContent) : texts.join('\n');
  const kept = answer.structuredContent ?? texts.join('\n');
  return { text, kept: text.length <= MAX_KEPT_RESULT_CHARS ? kept : undefined };
}

async function readTools(client: Client): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...(page.tools as ListedTool[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tools.filter((t) => t.annotations?.readOnlyHint === true);
}

/**
 * Connects to the gateway and wraps its read tools for the model: each call takes from the turn's
 * budget, follows the turn's abort signal down to the MCP request (the gateway then cancels its
 * backend request), and hands the model its result as labelled untrusted data.
 */
export async function openGatewayTools(options: {
  mcpUrl: string;
  token: string;
  budget: TurnBudget;
  onStep: (step: ToolStep) => void;
}): Promise<GatewayTools> {
  const client = new Client(
    { name: 'svc-console-assistant', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MCP_REVISION } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(options.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${options.token}` } },
    }),
  );
  const listed = await readTools(client);
  let numbered = 0;
  const tools: ToolSet = {};
  const groups = new Map<string, string[]>();
  for (const t of listed) {
    const group = t.name.split('.')[0]!;
    groups.set(group, [...(groups.get(group) ?? []), modelToolName(t.name)]);
    tools[modelToolName(t.name)] = dynamicTool({
      description: t.description ?? t.name,
      inputSchema: jsonSchema(t.inputSchema as JSONSchema7),
      execute: async (input, { abortSignal }) => {
        const step: ToolStep = {
          n: ++numbered,
          tool: t.name,
          input,
          status: 'running',
          sentChars: 0,
          cut: false,
        };
        if (!options.budget.takeCall()) {
          options.onStep({ ...step, status: 'not_called' });
          return callBudgetSpent(options.budget.maxCalls);
        }
        options.onStep(step);
        let answer: Awaited<ReturnType<Client['callTool']>>;
        try {
          answer = await client.callTool(
            { name: t.name, arguments: (input ?? {}) as Record<string, unknown> },
            abortSignal ? { signal: abortSignal } : undefined,
          );
        } catch (err) {
          // Stopped: the turn ends. Otherwise the model learns the call failed and goes on.
          if (abortSignal?.aborted) throw err;
          options.onStep({ ...step, status: 'error', error: CALL_FAILED });
          return asUntrustedData(t.name, step.n, `[error: ${CALL_FAILED}]`);
        }
        const { text, kept } = resultOf(answer);
        const fitted = options.budget.fit(text);
        options.onStep({
          ...step,
          status: answer.isError ? 'error' : 'ok',
          sentChars: fitted.text.length,
          cut: fitted.cut,
          ...(answer.isError ? { error: text.slice(0, 500) } : { result: kept }),
        });
        return asUntrustedData(t.name, step.n, fitted.text);
      },
    });
  }
  return {
    tools,
    groups: [...groups].sort(([a], [b]) => a.localeCompare(b)),
    serverAdvice: client.getInstructions(),
    close: () => client.close(),
  };
}
