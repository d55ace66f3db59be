import { catalogToolsets, catalogViews } from '@svc/tool-catalog';
import { compactText, toMcpTool } from '@svc/tool-server';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { type BenchCore, SECRET } from '../core-harness';
import { textTable } from '../report';
import { loadCrashes, loadLogs } from './data';
import { loadSpans } from './traces';

type AnyTool = Parameters<typeof toMcpTool>[0];

// What an agent pays in context: tokens of tools/list (the whole catalog and each toolset a client
// may choose) and of three typical answers as text content, counted with o200k_base (js-tiktoken,
// the ranks ship in the package: offline). Answers are counted three ways: pretty JSON (indented,
// as many servers write it), the minified JSON our text content was, and the compact text it is
// now (compact-text.ts); structuredContent is the exact JSON in every case.

const PROJECT = 'bench_tokens';

export interface TokenCount {
  name: string;
  tools: number;
  bytes: number;
  tokens: number;
}

export interface AnswerTokens {
  name: string;
  call: string;
  items: number;
  pretty: number;
  minified: number;
  compact: number;
}

export interface TokensReport {
  lists: TokenCount[];
  answers: AnswerTokens[];
}

const TYPICAL_CALLS: ReadonlyArray<{ name: string; tool: string; input: Record<string, unknown> }> = [
  { name: 'recent logs', tool: 'log.recent', input: { limit: 50 } },
  { name: 'crash signatures', tool: 'crash.aggregate', input: { group_by: 'signature', limit: 20 } },
  { name: 'slow traces', tool: 'trace.search', input: { min_duration_ms: 100, limit: 20 } },
];

/** Tokens of the tools/list answer as MCP serves it (with the views' `_meta`). */
function listTokens(encoder: Tiktoken, name: string, tools: readonly AnyTool[]): TokenCount {
  const text = JSON.stringify({
    tools: tools.map((tool) => toMcpTool(tool, catalogViews.toolMetas[tool.name])),
  });
  return { name, tools: tools.length, bytes: Buffer.byteLength(text), tokens: encoder.encode(text).length };
}

async function answerOf(core: BenchCore, tool: string, input: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${core.url}/internal/v1/projects/${PROJECT}/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-secret': SECRET },
    body: JSON.stringify(input),
  });
  if (res.status !== 200) throw new Error(`${tool} answered ${res.status}`);
  return (await res.json()) as Record<string, unknown>;
}

export async function benchTokens(core: BenchCore): Promise<TokensReport> {
  const encoder = new Tiktoken(o200kBase);
  const toolsets = Object.entries(catalogToolsets);
  const lists = [
    listTokens(
      encoder,
      'full catalog',
      toolsets.flatMap(([, tools]) => tools),
    ),
    ...toolsets.map(([name, tools]) => listTokens(encoder, `toolset ${name}`, tools)),
  ];
  await loadLogs(core.ch, PROJECT, 20_000, core.now, 'user_heavy');
  await loadCrashes(core.ch, PROJECT, 5_000, core.now);
  await loadSpans(core.ch, PROJECT, 8_000, core.now);
  const answers: AnswerTokens[] = [];
  for (const call of TYPICAL_CALLS) {
    const value = await answerOf(core, call.tool, call.input);
    const items = Object.values(value).find(Array.isArray)?.length ?? 0;
    const count = (text: string) => encoder.encode(text).length;
    answers.push({
      name: call.name,
      call: `${call.tool} ${JSON.stringify(call.input)}`,
      items,
      pretty: count(JSON.stringify(value, null, 2)),
      minified: count(JSON.stringify(value)),
      compact: count(compactText(value)),
    });
  }
  return { lists, answers };
}

export function tokensTables(r: TokensReport): string {
  const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)}%`;
  const full = r.lists[0]!;
  return [
    '',
    'tools/list tokens (o200k_base), as MCP serves it: the full catalog and each toolset a client may choose',
    textTable(
      ['list', 'tools', 'bytes', 'tokens', 'of full'],
      r.lists.map((l) => [
        l.name,
        String(l.tools),
        String(l.bytes),
        String(l.tokens),
        pct(l.tokens, full.tokens),
      ]),
    ),
    '',
    'Text content tokens of three typical answers: pretty JSON, the minified JSON it was, the compact text it is',
    textTable(
      ['answer', 'call', 'items', 'pretty', 'minified', 'compact', 'compact/minified', 'compact/pretty'],
      r.answers.map((a) => [
        a.name,
        a.call,
        String(a.items),
        String(a.pretty),
        String(a.minified),
        String(a.compact),
        pct(a.compact, a.minified),
        pct(a.compact, a.pretty),
      ]),
    ),
  ].join('\n');
}
