import type { AnyTool } from '@svc/tool-kit';
import { catalogToolsets } from './catalog';
import { investigationGuides } from './guides';

const code = (s: string) => `\`${s}\``;

/**
 * The tool reference's paragraphs on what a client chooses and reads: toolsets, the compact text
 * content, the investigation guides served as prompts and skills (only the toolsets and guides whose tools
 * are all in `tools`).
 */
export function choicesPreface(tools: readonly AnyTool[]): string[] {
  const have = new Set(tools.map((t) => t.name));
  const toolsets = Object.entries(catalogToolsets).filter(([, members]) =>
    members.every((t) => have.has(t.name)),
  );
  const guides = investigationGuides.filter((g) => g.steps.every((s) => have.has(s.tool)));
  return [
    'Toolsets: an MCP client may load only some groups, named in `?toolsets=` on `/mcp` or in the ' +
      '`X-MCP-Toolsets` header (comma-separated; for stdio, `SVC_MCP_TOOLSETS`). `tools/list` then holds ' +
      'their tools only and a call of another tool is refused naming its toolset; an unknown name is a 400 ' +
      'that lists the known ones; without a choice, every tool. `GET /openapi.json?toolsets=...` is narrowed ' +
      'the same way; REST calls are not.',
    '',
    ...toolsets.map(([name, members]) => `- ${code(name)}: ${members.map((t) => code(t.name)).join(', ')}`),
    '',
    'Over MCP, `structuredContent` is the result as JSON (the same as REST) and the text content is a compact ' +
      'form for models that read text only: one `field: value` line per field, a list of objects as a table ' +
      '(`items[n]: col|col|...`, then one line per item), nested values as compact JSON.',
    '',
    ...(guides.length > 0
      ? [
          'Investigation guides, served as MCP prompts (`prompts/list`, `prompts/get`) and, to clients of the MCP ' +
            'Skills extension (`io.modelcontextprotocol/skills` in the server capabilities), as skills ' +
            '(`skills/list`, then `resources/read` of `skill://<name>/SKILL.md`): each names the tools to call in ' +
            'order and what to look for. A guide is offered while all its tools are in the chosen toolsets.',
          '',
          ...guides.map(
            (g) =>
              `- ${code(g.name)} (${g.arguments.map((a) => (a.required ? a.name : `${a.name}?`)).join(', ') || 'no arguments'}): ` +
              `${g.title}: ${g.steps.map((s) => code(s.tool)).join(', ')}`,
          ),
          '',
        ]
      : []),
  ];
}
