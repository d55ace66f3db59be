import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { byGroup, type CatalogTool, catalogTools } from '../gateway-catalog';
import { formModel, toolInput } from '../schema-form';
import { TEST_PAGE_CONTEXT } from '../testing/page-context';
import { ToolPage, type ToolPageProps, ToolsIndexPage } from './tools';

// The tool runner's pages rendered as the server sends them, on constructed catalogs and answers.

const ctx = TEST_PAGE_CONTEXT;

const doc = {
  paths: {
    '/v1/tools/log.search': {
      post: {
        summary: 'Search logs <b>fast</b>',
        description: 'Find log lines.',
        tags: ['log'],
        'x-capability': 'base',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/in' } } } },
      },
    },
    '/v1/tools/crash.stats': {
      post: { summary: 'Crash statistics', tags: ['crash'], 'x-capability': 'base' },
    },
    '/v1/tools/log.list_files': {
      post: { summary: 'Recalled files', tags: ['log'], 'x-capability': 'vis_recall' },
    },
    '/healthz': {},
  },
  components: {
    schemas: {
      in: {
        type: 'object',
        properties: {
          search: { type: 'string', minLength: 1, maxLength: 200, description: 'Text to find.' },
          level: { type: 'string', enum: ['INFO', 'ERROR'] },
          limit: { type: 'integer', minimum: 1, maximum: 1000, default: 20, description: 'Most items.' },
          steps: { type: 'array', items: { type: 'string' } },
          exact: { type: 'boolean' },
          window: { type: 'object', properties: { days: { type: 'integer' } }, required: ['days'] },
          attributes: { type: 'object', additionalProperties: { type: 'string' } },
        },
        required: ['search'],
      },
    },
  },
};
const tool = catalogTools(doc).find((t) => t.name === 'log.search') as CatalogTool;
const fields = formModel(tool.inputSchema, doc);

const render = (props: Partial<ToolPageProps>) =>
  renderToString(h(ToolPage, { ctx, tool, fields, json: '{}', ...props }));

/** Ids of visible form controls that no `<label for>` names. */
function unlabelled(html: string): string[] {
  const labelled = new Set([...html.matchAll(/<label for="([^"]+)"/g)].map((m) => m[1]));
  return [...html.matchAll(/<(input|select|textarea)\b([^>]*)>/g)]
    .filter(([, , attrs]) => !/type="hidden"/.test(attrs!))
    .map(([, , attrs]) => /id="([^"]+)"/.exec(attrs!)?.[1] ?? '(no id)')
    .filter((id) => !labelled.has(id));
}

describe('ToolsIndexPage', () => {
  it('lists every published tool by group with its summary (as text) and capability', () => {
    const html = renderToString(h(ToolsIndexPage, { ctx, groups: byGroup(catalogTools(doc)) }));
    expect([...html.matchAll(/<h2 id="group-([^"]+)"/g)].map((m) => m[1])).toEqual(['crash', 'log']);
    expect([...html.matchAll(/data-tool="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'crash.stats',
      'log.list_files',
      'log.search',
    ]);
    expect(html).toContain('href="/tools/log.search?project=prj_1"');
    expect(html).toContain('Search logs &lt;b>fast&lt;/b>');
    expect(html).toContain('<code>vis_recall</code>');
    expect(html).toContain("the console's own token for your session");
  });
});

describe('ToolPage', () => {
  it("shows the description's `code` spans as code, in the description and the fields' help, as text only", () => {
    const described: CatalogTool = {
      ...tool,
      summary: 'Search `logs`',
      description:
        'Returns {items, `has_more`}; call `log.recent` first. <img src=x onerror=alert(1)> `<b>x</b>`',
    };
    const withHelp = fields.map((f) =>
      f.key === 'search' ? { ...f, description: 'Text to find (`*` is literal).' } : f,
    );
    const html = renderToString(h(ToolPage, { ctx, tool: described, fields: withHelp, json: '{}' }));
    const description = /<p id="tool-description">([\s\S]*?)<\/p>/.exec(html)![1]!;
    expect(description).toBe(
      'Returns {items, <code>has_more</code>}; call <code>log.recent</code> first. ' +
        '&lt;img src=x onerror=alert(1)> <code>&lt;b>x&lt;/b></code>',
    );
    expect(html).toContain('<strong>Search <code>logs</code></strong>');
    expect(html).toContain('Text to find (<code>*</code> is literal).</small>');
    expect(html).not.toContain('`');
    expect(html).not.toContain('<img src=x');
  });

  it('has a labelled control for every input property, required marked, help tied to it', () => {
    const html = render({});
    expect(unlabelled(html)).toEqual([]);
    expect(html).toMatch(
      /<label for="field-in\.search"><code>search<\/code><span class="required"> \(required\)/,
    );
    expect(html).toMatch(
      /<input id="field-in\.search" name="in\.search" required[^>]*aria-describedby="field-in\.search-help"/,
    );
    expect(html).toContain('<small id="field-in.search-help">Text to find.</small>');
    expect(html).toMatch(
      /<input id="field-in\.limit"[^>]*type="number"[^>]*step="1" min="1" max="1000"[^>]*placeholder="20"/,
    );
    expect(html).toMatch(/<select id="field-in\.level" name="in\.level"/);
    expect(html).toMatch(/<textarea id="field-in\.steps" name="in\.steps"/);
    expect(html).toMatch(/<input id="field-in\.exact" name="in\.exact"[^>]*type="checkbox" value="true"/);
    expect(html).toContain('<fieldset class="schema-fieldset"');
    // Required inside an optional object: marked, but the browser does not insist.
    expect(html).toMatch(/<input id="field-in\.window\.days" name="in\.window\.days" type="number"/);
    expect(html).toMatch(/<textarea id="field-in\.attributes"[^>]*class="code"/);
    expect(html).toContain('action="/tools/log.search?project=prj_1#result"');
    expect(html).toContain('<input type="hidden" name="_csrf" value="csrf-token"/>');
    expect(html).toContain('<textarea id="input-json" name="input_json"');
    expect(html).not.toContain('id="result"');
  });

  it('keeps what was submitted in the form', () => {
    const values = {
      'in.search': 'a "quoted" <term>',
      'in.level': 'ERROR',
      'in.exact': 'true',
      'in.steps': 'a\nb',
    };
    const html = render({ values });
    expect(html).toContain('value="a &quot;quoted&quot; &lt;term>"');
    expect(html).toContain('<option value="ERROR" selected>ERROR</option>');
    expect(html).toMatch(/name="in\.exact"[^>]*checked/);
    expect(html).toMatch(/name="in\.steps"[^>]*>a\nb<\/textarea>/);
  });

  it('marks fields it could not convert and lists them with links, running nothing', () => {
    const values = { 'in.search': 'x', 'in.limit': '2.5' };
    const { errors } = toolInput(fields, values);
    const html = render({ values, errors });
    expect(html).toContain('role="alert"');
    expect(html).toContain('<a href="#field-in.limit"><code>limit</code></a> expects a whole number');
    expect(html).toMatch(
      /<input id="field-in\.limit"[^>]*aria-invalid="true" aria-describedby="field-in\.limit-error field-in\.limit-help"/,
    );
  });

  it('shows a result as JSON text, and the same call as curl and as an MCP request, never with a token', () => {
    const input = { search: "it's <b>", limit: 5 };
    const result = { items: [{ message: '<script>alert(1)</script>' }], limit: 5, has_more: false };
    const html = render({ run: { input, answer: { ok: true, status: 200, result }, elapsedMs: 12 } });
    expect(html).toContain('<p role="status" class="notice ok">200 OK in 12 ms</p>');
    expect(html).not.toContain('<script>alert(1)');
    const shown = /<code id="tool-result">([\s\S]*?)<\/code>/.exec(html)![1]!;
    expect(decodeHtml(shown)).toBe(JSON.stringify(result, null, 2));
    const curl = decodeHtml(/<code id="call-curl">([\s\S]*?)<\/code>/.exec(html)![1]!);
    expect(curl).toContain("curl -s 'https://mcp.example.com/v1/tools/log.search'");
    expect(curl).toContain('-H "Authorization: Bearer $SVC_TOKEN"');
    expect(curl).toContain(`-d '{"search":"it'\\''s <b>","limit":5}'`);
    const mcp = JSON.parse(decodeHtml(/<code id="call-mcp">([\s\S]*?)<\/code>/.exec(html)![1]!));
    expect(mcp).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'log.search', arguments: input },
    });
    expect(html).toContain('href="/audit?project=prj_1">Audit page</a>');
  });

  it('shows an error answer: status, code, message, details, and why a tool can be unknown', () => {
    const html = render({
      run: {
        input: {},
        answer: {
          ok: false,
          status: 400,
          error: { error: 'invalid_input', message: 'search: expected text', details: [{ path: 'search' }] },
        },
        elapsedMs: 3,
      },
    });
    const alert = /<div role="alert" class="notice error" id="tool-error">([\s\S]*?)<\/div>/.exec(html)![1]!;
    expect(alert).toContain('<strong>400</strong> <code>invalid_input</code>: search: expected text');
    expect(decodeHtml(/<pre><code>([\s\S]*?)<\/code><\/pre>/.exec(alert)![1]!)).toBe(
      JSON.stringify([{ path: 'search' }], null, 2),
    );
    expect(alert).not.toContain('capability is turned off');
    const unknown = render({
      run: {
        input: {},
        answer: { ok: false, status: 404, error: { error: 'not_found', message: 'Unknown tool' } },
        elapsedMs: 1,
      },
    });
    expect(unknown).toContain('its capability is turned off for your organization');
  });

  it('says when the gateway does not publish the tool, and opens the JSON editor on a JSON error', () => {
    const html = render({
      unpublished: true,
      fields: [],
      json: '{nope',
      jsonError: 'This is not valid JSON.',
    });
    expect(html).toContain('id="tool-unpublished"');
    expect(html).toContain('This tool takes no parameters.');
    expect(html).toContain('<details open class="raw-json">');
    expect(html).toMatch(/<textarea id="input-json"[^>]*aria-invalid="true"[^>]*>\{nope<\/textarea>/);
  });
});

function decodeHtml(html: string): string {
  return html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
