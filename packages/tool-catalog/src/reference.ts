import type { AnyTool } from '@svc/tool-kit';
import { buildOpenApiDocument, type McpViews, toolJsonSchema, usageAdvice } from '@svc/tool-server';
import { choicesPreface } from './reference-choices';
import { SPEC_TOOL_NAMES } from './spec-names';
import { catalogViews } from './views';

// The published contract written out from the registry: docs/openapi.json (what GET /openapi.json
// serves when every tool is deployed) and docs/tools.md (the tool reference). `pnpm contract`
// writes both; a test fails when either differs from what the code would write, so a change of a
// tool's schema or description cannot land without its reviewed diff in docs/.

type Schema = {
  $ref?: string;
  $defs?: Record<string, Schema>;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
};

const code = (text: string) => `\`${text}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A JSON schema as a short type expression: `string (date-time) | null`, `"a" | "b"`, `object[]`. */
export function typeOf(s: Schema): string {
  if (s.$ref) return s.$ref.split('/').pop()!;
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  if (s.type === 'array') return s.items ? `${wrap(typeOf(s.items))}[]` : 'array';
  if (s.type === 'object' && !s.properties && s.additionalProperties && s.additionalProperties !== true) {
    return `map of ${typeOf(s.additionalProperties)}`;
  }
  const base = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'any JSON');
  return s.format ? `${base} (${s.format})` : base;
}

const wrap = (t: string) => (t.includes(' | ') ? `(${t})` : t);

function constraints(s: Schema): string {
  const out: string[] = [];
  if (s.minimum !== undefined || s.maximum !== undefined) out.push(`${s.minimum ?? ''}..${s.maximum ?? ''}`);
  if (s.minLength !== undefined || s.maxLength !== undefined) {
    out.push(`${s.minLength ?? 0}..${s.maxLength ?? ''} characters`);
  }
  if (s.minItems !== undefined || s.maxItems !== undefined)
    out.push(`${s.minItems ?? 0}..${s.maxItems ?? ''} items`);
  if (s.pattern) out.push(`matches ${code(s.pattern)}`);
  return out.join('; ');
}

// Parameters every list shares go undescribed in the schemas (tools/list carries them on every
// list tool); the reference says what they mean.
const SHARED_MEANINGS: Record<string, string> = {
  limit: 'Most items to return.',
  cursor: 'The `next_cursor` of the previous page, or of the cut answer to go on with.',
};

function parameters(tool: AnyTool): string[] {
  const schema = toolJsonSchema(tool.input, 'input') as Schema;
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length === 0) return ['No parameters.'];
  const required = new Set(schema.required ?? []);
  const rows = entries.map(([name, p]) =>
    [
      code(name),
      cell(typeOf(p)),
      required.has(name) ? 'yes' : '',
      p.default === undefined ? '' : code(JSON.stringify(p.default)),
      cell(constraints(p)),
      cell(p.description ?? SHARED_MEANINGS[name] ?? ''),
    ].join(' | '),
  );
  return [
    '| parameter | type | required | default | range | meaning |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r} |`),
  ];
}

/** Named schemas of one result, each listed with its fields only where it first appears. */
interface Named {
  defs: Record<string, Schema>;
  listed: Set<string>;
}

/**
 * The object whose fields describe `s`: itself, its array's items, the non-null member of anyOf,
 * or the named schema it refers to (once: a recursive schema's second mention is its name alone).
 */
function objectOf(s: Schema, named: Named): Schema | undefined {
  if (s.$ref) {
    const name = s.$ref.split('/').pop()!;
    if (named.listed.has(name)) return undefined;
    named.listed.add(name);
    return named.defs[name] ? objectOf(named.defs[name], named) : undefined;
  }
  if (s.properties) return s;
  if (s.items) return objectOf(s.items, named);
  const member = s.anyOf?.find((a) => a.properties || a.items || a.$ref);
  return member ? objectOf(member, named) : undefined;
}

/** The result as a nested list of fields: name, type, and what it means. */
function fields(
  s: Schema,
  depth: number,
  out: string[],
  named: Named = { defs: s.$defs ?? {}, listed: new Set() },
): void {
  const target = objectOf(s, named);
  if (!target?.properties) return;
  const required = new Set(target.required ?? []);
  for (const [name, p] of Object.entries(target.properties)) {
    const optional = required.has(name) ? '' : ' (optional)';
    const meaning = p.description ? `: ${p.description}` : '';
    out.push(`${'  '.repeat(depth)}- ${code(name)} ${cell(typeOf(p))}${optional}${meaning}`);
    fields(p, depth + 1, out, named);
  }
}

/** What a tool's section says about its MCP Apps view. */
export const viewFact = (uri: string) => `inline view ${code(uri)} (MCP Apps)`;

function toolSection(tool: AnyTool, views: McpViews): string[] {
  const result: string[] = [];
  fields(toolJsonSchema(tool.output, 'output') as Schema, 0, result);
  const facts = [
    `capability ${code(tool.capability)}`,
    `served by ${code(tool.backend)}`,
    ...(tool.overview ? ['overview: call it first'] : []),
    ...(views.toolMetas[tool.name] ? [viewFact(views.toolMetas[tool.name]!.ui.resourceUri)] : []),
  ];
  return [
    `### ${code(tool.name)}: ${tool.title}`,
    '',
    `${facts.join(' · ')}`,
    '',
    tool.description,
    '',
    '**Parameters**',
    '',
    ...parameters(tool),
    '',
    '**Result**',
    '',
    ...result,
    '',
    '**Example**',
    '',
    '```sh',
    `curl -s "$URL/v1/tools/${tool.name}" -H "Authorization: Bearer $TOKEN" \\`,
    `  -H "Content-Type: application/json" -d '${JSON.stringify(tool.example)}'`,
    '```',
    '',
    `Over MCP: ${code(`tools/call`)} with name ${code(tool.name)} and arguments ${code(JSON.stringify(tool.example))}.`,
    '',
  ];
}

/** docs/tools.md: every tool of the catalog, grouped by the first part of its name. */
export function renderToolReference(tools: readonly AnyTool[], views: McpViews = catalogViews): string {
  const groups = new Map<string, AnyTool[]>();
  for (const t of tools) {
    const group = t.name.split('.')[0]!;
    groups.set(group, [...(groups.get(group) ?? []), t]);
  }
  const have = new Set(tools.map((t) => t.name));
  const drawn = tools.filter((t) => views.toolMetas[t.name]).map((t) => code(t.name));
  const planned = Object.values(SPEC_TOOL_NAMES)
    .flat()
    .filter((n) => !have.has(n));
  const lines = [
    '# Tool reference',
    '',
    '<!-- Generated from the tool registry by `pnpm contract`; edit the tool definitions, not this file. -->',
    '',
    `${tools.length} tools. ${usageAdvice(tools)}`,
    '',
    'Every tool is `POST /v1/tools/{name}` with its parameters as a JSON object (REST) or `tools/call` ' +
      '(MCP); the project comes from the token, and `project_id` is never a parameter. Lists answer ' +
      '`{items, limit, has_more, next_cursor}`: pass `next_cursor` back as `cursor` (with the same ' +
      'other parameters; `limit` may change) for the next page; it is absent on the last page, opaque, ' +
      'bound to the token, the tool and its parameters, and lasts an hour (after that, or with other ' +
      'parameters, a 400 names `cursor`). An MCP answer fits a result budget in characters of JSON: ' +
      "the tool's own (100,000; tools/list declares it as " +
      '`_meta["anthropic/maxResultSizeChars"]`), or the same `_meta` key of the `tools/call` request; a ' +
      'REST answer is whole unless the `X-Max-Result-Chars` header sets one (1,000 to 1,000,000). An answer over it is cut, still valid: list items are left out, ' +
      "`truncated: true`, `omitted` counts what was left out per list, and a list page's `next_cursor` " +
      'starts at the first item left out. Any other cut answer has a `next_cursor` too: the same call ' +
      'with it as `cursor` (every other parameter, `limit` included, the same) is answered afresh, each ' +
      "cut list going on where the last part stopped (`continued` gives each one's index in the whole " +
      'list) and the lists that were whole left empty. Windowed results state their `window`. Errors: see the README. ' +
      'The machine-readable contract is [`openapi.json`](openapi.json), the same document ' +
      '`GET /openapi.json` serves. Semantics (windows, percentiles, statistics): [semantics.md](semantics.md). ' +
      'The examples assume `URL=http://localhost:8092` and a token in `TOKEN` (see the README).',
    '',
    ...[...groups.entries()].map(
      ([group, members]) =>
        `- **${group}**: ${members.map((t) => `[${code(t.name)}](#${anchor(t)})`).join(', ')}`,
    ),
    ...(planned.length > 0 ? ['', `Not built yet: ${planned.map(code).join(', ')}.`] : []),
    '',
    ...(drawn.length > 0
      ? [
          `Inline views (MCP Apps): ${drawn.join(', ')} name a \`ui://\` view in their definition's ` +
            '`_meta`; hosts with MCP Apps support draw the result in it, others get the same text and ' +
            'structured content.',
          '',
        ]
      : []),
    ...choicesPreface(tools),
  ];
  for (const [group, members] of groups) {
    lines.push(`## ${group}`, '');
    for (const t of members) lines.push(...toolSection(t, views));
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

/** GitHub's heading anchor of a tool's section. */
function anchor(tool: AnyTool): string {
  return `${tool.name}: ${tool.title}`
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

/** docs/openapi.json: the document GET /openapi.json serves with every tool deployed and visible. */
export function renderOpenApi(tools: readonly AnyTool[]): string {
  return `${JSON.stringify(buildOpenApiDocument(tools), null, 2)}\n`;
}
