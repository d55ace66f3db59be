import {
  type GetPromptResult,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
} from '@modelcontextprotocol/server';
import type { GuideStep, InvestigationGuide } from '@svc/tool-kit';

/**
 * The investigation guides as MCP prompts (prompts/list, prompts/get): each guide is listed while
 * every tool it names is one the caller can see (its toolsets, its org's capabilities, the
 * backends up), so a prompt never sends a model to a tool it cannot call.
 */
export function servePrompts(
  server: Server,
  guides: readonly InvestigationGuide[],
  visibleToolNames: () => ReadonlySet<string>,
): void {
  const served = () => guidesWithin(guides, visibleToolNames());
  server.setRequestHandler('prompts/list', async () => ({ prompts: served().map(toPrompt) }));
  server.setRequestHandler('prompts/get', async (request) => {
    const { name, arguments: args } = request.params;
    const guide = served().find((g) => g.name === name);
    if (!guide) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return renderGuide(guide, args ?? {});
  });
}

/**
 * The guides whose every tool the caller can see: the one rule for prompts and skills alike (a
 * guide half of whose tools are missing would send a model to calls it cannot make).
 */
export function guidesWithin(
  guides: readonly InvestigationGuide[],
  visible: ReadonlySet<string>,
): InvestigationGuide[] {
  return guides.filter((guide) => guide.steps.every((step) => visible.has(step.tool)));
}

function toPrompt(guide: InvestigationGuide): Prompt {
  return {
    name: guide.name,
    title: guide.title,
    description: guide.description,
    arguments: guide.arguments.map((a) => ({
      name: a.name,
      description: a.description,
      required: a.required,
    })),
  };
}

/**
 * The guide as one user message: its steps numbered, each a tool call written as JSON with the
 * client's arguments filled in. A step argument whose value is an optional argument left out is
 * dropped (the tool's default applies); `<...>` values are read from an earlier answer.
 */
export function renderGuide(
  guide: InvestigationGuide,
  args: Readonly<Record<string, string>>,
): GetPromptResult {
  const missing = guide.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
  if (missing.length > 0) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Prompt ${guide.name} needs the argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`,
    );
  }
  const text = [
    `${guide.title}. ${guide.description}`,
    'Call these tools in order; values in <...> come from an earlier answer:',
    ...guideSteps(guide, args),
  ].join('\n');
  return { description: guide.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}

/**
 * The guide's steps, numbered: each a tool call written as JSON with `args` filled in, then what
 * to look for. The prompt and the skill's SKILL.md (mcp-skills.ts) both say their steps with it.
 */
export function guideSteps(guide: InvestigationGuide, args: Readonly<Record<string, string>>): string[] {
  const argumentValue = (name: string) =>
    args[name] || guide.arguments.find((a) => a.name === name)?.fallback;
  const fill = (text: string) =>
    text.replace(/\{(\w+)\}/g, (all, name: string) => argumentValue(name) ?? all);
  return guide.steps.map(
    (step, i) =>
      `${i + 1}. ${step.tool} ${JSON.stringify(callArgs(step, fill))}\n   Look for: ${fill(step.lookFor)}`,
  );
}

function callArgs(step: GuideStep, fill: (text: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(step.args)) {
    if (typeof value !== 'string') {
      out[key] = value;
      continue;
    }
    const filled = fill(value);
    // An optional argument the client left out: the tool's own default applies.
    if (/\{\w+\}/.test(filled)) continue;
    out[key] = /^\d+$/.test(filled) && /^\{\w+\}$/.test(value) ? Number(filled) : filled;
  }
  return out;
}
