import { readFileSync } from 'node:fs';
import { SECRET } from '@svc/identity/harness';
import { listViewResources } from '@svc/mcp-views';
import { catalogTools } from '../gateway-catalog';
import { createIdentityApi } from '../identity-api';
import {
  type ConsoleTestBed,
  csrfIn,
  signIn,
  startConsoleTestBed,
  type TestUser,
} from '../testing/console-harness';
import { type FakeGateway, startFakeGateway } from '../testing/fake-gateway';
import { createToolCaller, type OpenApiDocument } from '../tool-calls';

// The tool runner over a real identity (which mints the console's tool token for the session) and
// the real tool caller, against a scripted gateway on loopback serving the stack's real contract.
// The same pages against the real gateway and backends: apps/standalone/src/e2e.

const contract = JSON.parse(
  readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8'),
) as OpenApiDocument;

const RESULT = { items: [{ message: '<script>alert(1)</script>' }], limit: 20, has_more: false };
const INVALID = {
  error: 'invalid_input',
  message: 'group_by: expected one of signature, error_type',
  details: [{ path: 'group_by' }],
};

let bed: ConsoleTestBed;
let gateway: FakeGateway;
beforeAll(async () => {
  bed = await startConsoleTestBed();
  gateway = await startFakeGateway({
    openapi: contract,
    answer: (tool) => {
      if (tool === 'crash.aggregate') return { status: 400, body: INVALID };
      if (tool === 'no.such_tool')
        return { status: 404, body: { error: 'not_found', message: 'Unknown tool.' } };
      return { status: 200, body: RESULT };
    },
  });
});
afterAll(async () => {
  await gateway.close();
  await bed.close();
});

function runnerApp(gatewayUrl = gateway.url) {
  const identity = createIdentityApi({ identityUrl: bed.identityUrl, internalSecret: SECRET });
  return bed.consoleApp({ tools: createToolCaller({ gatewayUrl, identity }) }).app;
}

async function signedIn(name: string): Promise<{ agent: Awaited<ReturnType<typeof signIn>>; u: TestUser }> {
  const u = await bed.user(name);
  return { agent: await signIn(runnerApp(), u), u };
}

/** The text of the `<code id>` block, as the person reads it. */
const codeBlock = (html: string, id: string) =>
  decodeHtml(new RegExp(`<code id="${id}">([\\s\\S]*?)</code>`).exec(html)![1]!);

function decodeHtml(html: string): string {
  return html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

describe('GET /tools', () => {
  it("lists the gateway's published tools by group", async () => {
    const { agent } = await signedIn('tools-list');
    const page = await agent.get('/tools').expect(200);
    const listed = [...page.text.matchAll(/data-tool="([^"]+)"/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual(catalogTools(contract).map((t) => t.name));
    expect(page.text).toContain('<h2 id="group-analytics">analytics</h2>');
  });

  it('answers 503 while the gateway does not answer', async () => {
    const u = await bed.user('tools-down');
    const agent = await signIn(runnerApp('http://127.0.0.1:9'), u);
    expect((await agent.get('/tools')).status).toBe(503);
  });
});

describe('running a tool', () => {
  it("sends the form's filled fields, converted, with the console's token, and shows the answer", async () => {
    const { agent, u } = await signedIn('tools-run');
    const form = await agent.get('/tools/analytics.funnel').expect(200);
    expect(form.text).toContain('<textarea id="field-in.steps" name="in.steps" required');
    const before = gateway.calls.length;
    const res = await agent
      .post(`/tools/analytics.funnel?project=${u.projectId}`)
      .type('form')
      .send({
        _csrf: csrfIn(form.text),
        mode: 'form',
        'in.steps': 'signup\n checkout \n\n',
        'in.days': '7',
        'in.window_hours': '',
        'in.platform': '',
      });
    expect(res.status).toBe(200);
    const input = { steps: ['signup', 'checkout'], days: 7 };
    const call = gateway.calls[before]!;
    expect(gateway.calls.length).toBe(before + 1);
    expect(call.tool).toBe('analytics.funnel');
    expect(call.input).toEqual(input);
    // The console's own token went to the gateway, and nowhere on the page.
    const token = /^Bearer (svc_\w+)$/.exec(call.authorization ?? '')?.[1];
    expect(token).toBeDefined();
    expect(res.text).not.toContain(token!);

    expect(JSON.parse(codeBlock(res.text, 'tool-result'))).toEqual(RESULT);
    expect(res.text).not.toContain('<script>alert(1)');
    expect(codeBlock(res.text, 'call-curl')).toContain(`-d '${JSON.stringify(input)}'`);
    expect(codeBlock(res.text, 'call-curl')).toContain('Bearer $SVC_TOKEN');
    expect(JSON.parse(codeBlock(res.text, 'call-mcp')).params).toEqual({
      name: 'analytics.funnel',
      arguments: input,
    });
    // What was run stays in the form and in the JSON editor.
    expect(res.text).toContain('<input id="field-in.days" name="in.days"');
    expect(res.text).toMatch(/name="in\.days"[^>]*value="7"/);
    expect(decodeHtml(/<textarea id="input-json"[^>]*>([\s\S]*?)<\/textarea>/.exec(res.text)![1]!)).toBe(
      JSON.stringify(input, null, 2),
    );
  });

  it('sends raw JSON as it is, and refuses JSON that is not an object without calling', async () => {
    const { agent, u } = await signedIn('tools-json');
    const csrf = csrfIn((await agent.get('/tools/log.search').expect(200)).text);
    const before = gateway.calls.length;
    const raw = { search: 'timeout', extra: [1, { deep: true }] };
    await agent
      .post(`/tools/log.search?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, mode: 'json', input_json: JSON.stringify(raw) })
      .expect(200);
    expect(gateway.calls.slice(before).map((c) => c.input)).toEqual([raw]);

    for (const [text, message] of [
      ['{"search": ', 'This is not valid JSON'],
      ['["search"]', 'The input is a JSON object'],
    ] as const) {
      const res = await agent
        .post(`/tools/log.search?project=${u.projectId}`)
        .type('form')
        .send({ _csrf: csrf, mode: 'json', input_json: text });
      expect(res.status).toBe(400);
      expect(res.text).toContain(message);
      expect(res.text).toContain('<details open class="raw-json">');
    }
    expect(gateway.calls.length).toBe(before + 1);
  });

  it('names a field it cannot convert and calls nothing', async () => {
    const { agent, u } = await signedIn('tools-convert');
    const csrf = csrfIn((await agent.get('/tools/log.search').expect(200)).text);
    const before = gateway.calls.length;
    const res = await agent
      .post(`/tools/log.search?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, mode: 'form', 'in.search': 'x', 'in.limit': '2.5' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('<code>limit</code></a> expects a whole number');
    expect(res.text).toMatch(/name="in\.limit"[^>]*value="2\.5"/);
    expect(gateway.calls.length).toBe(before);
  });

  it("shows the gateway's refusal with its status, code, message and details", async () => {
    const { agent, u } = await signedIn('tools-refused');
    const csrf = csrfIn((await agent.get('/tools/crash.aggregate').expect(200)).text);
    const res = await agent
      .post(`/tools/crash.aggregate?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, mode: 'json', input_json: '{"group_by":"nope"}' });
    expect(res.status).toBe(400);
    const alert = /<div role="alert" class="notice error" id="tool-error">([\s\S]*?)<\/div>/.exec(
      res.text,
    )![1]!;
    expect(alert).toContain(`<strong>400</strong> <code>invalid_input</code>: ${INVALID.message}`);
    expect(decodeHtml(alert)).toContain(JSON.stringify(INVALID.details, null, 2));
  });

  it('says a tool the gateway does not publish, and shows what the gateway answers for it', async () => {
    const { agent, u } = await signedIn('tools-unknown');
    const page = await agent.get('/tools/no.such_tool').expect(404);
    expect(page.text).toContain('id="tool-unpublished"');
    const res = await agent
      .post(`/tools/no.such_tool?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrfIn(page.text), mode: 'json', input_json: '{}' });
    expect(res.status).toBe(404);
    expect(res.text).toContain('<code>not_found</code>: Unknown tool.');
    expect(res.text).toContain('its capability is turned off');
    // Not a tool name at all: never asked.
    expect((await agent.get('/tools/Not-A-Tool')).status).toBe(404);
  });

  it('refuses a run without the CSRF token', async () => {
    const { agent, u } = await signedIn('tools-csrf');
    const before = gateway.calls.length;
    const res = await agent
      .post(`/tools/log.search?project=${u.projectId}`)
      .type('form')
      .send({ mode: 'json', input_json: '{"search":"x"}' });
    expect(res.status).toBe(403);
    expect(gateway.calls.length).toBe(before);
  });
});

describe("answers drawn by the tool's MCP Apps view", () => {
  const run = async (agent: Awaited<ReturnType<typeof signIn>>, projectId: string, tool: string) => {
    const csrf = csrfIn((await agent.get(`/tools/${tool}`).expect(200)).text);
    return agent
      .post(`/tools/${tool}?project=${projectId}`)
      .type('form')
      .send({ _csrf: csrf, mode: 'json', input_json: '{"days":7}' })
      .expect(200);
  };

  it('shows a tool that has a view with it, the JSON one click away; a tool without one as JSON', async () => {
    const { agent, u } = await signedIn('tools-views');
    const drawn = await run(agent, u.projectId, 'release.health');
    const figure = /<figure class="tool-answer" id="tool-answer"([^>]*)>/.exec(drawn.text)?.[1];
    expect(figure).toContain('data-tool="release.health"');
    expect(figure).toContain('data-tool-view="/views/release-health.html"');
    expect(figure).toContain('data-tool-view-uri="ui://observability/release-health.html"');
    expect(decodeHtml(/data-tool-input="([^"]*)"/.exec(figure!)![1]!)).toBe('{"days":7}');
    expect(drawn.text).toMatch(
      /<details class="tool-json"><summary>Show JSON<\/summary><pre class="tool-result">/,
    );
    expect(JSON.parse(codeBlock(drawn.text, 'tool-result'))).toEqual(RESULT);
    expect(drawn.text).toContain('<script src="/static/view-host.js" defer></script>');

    const plain = await run(agent, u.projectId, 'log.search');
    expect(plain.text).not.toContain('data-tool-view');
    expect(plain.text).not.toContain('/static/view-host.js');
    expect(JSON.parse(codeBlock(plain.text, 'tool-result'))).toEqual(RESULT);
  });

  it("serves each view's HTML as the MCP server does, sandboxed and framed by the console only", async () => {
    const { agent } = await signedIn('tools-view-html');
    for (const resource of listViewResources()) {
      const res = await agent.get(`/views/${resource.name}.html`).expect(200);
      expect(res.text).toBe(resource.text);
      const csp = res.headers['content-security-policy'];
      expect(csp).toMatch(/^default-src 'none'; script-src 'sha256-/);
      expect(csp).toContain("; frame-ancestors 'self'; sandbox allow-scripts");
      expect(res.headers['x-frame-options']).toBeUndefined();
    }
    for (const path of ['/views/nope.html', '/views/release-health', '/views/..%2Fapp.html'])
      expect((await agent.get(path)).status).toBe(404);
  });
});

describe("a drawn view's tool calls, through the console", () => {
  it('go to the gateway as the person with the session CSRF token, and come back as the tool answered', async () => {
    const { agent, u } = await signedIn('tools-view-calls');
    const page = await agent.get(`/tools/apm.memory_growth?project=${u.projectId}`).expect(200);
    const csrf = csrfIn(page.text);
    const before = gateway.calls.length;
    const args = { name: 'memory_mb', search: 'session_id=s1', limit: 1000 };
    const res = await agent
      .post(`/tools/apm.search/call?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, arguments: JSON.stringify(args) })
      .expect(200);
    expect(res.body).toEqual({ ok: true, status: 200, result: RESULT });
    expect(gateway.calls.slice(before)).toMatchObject([{ tool: 'apm.search', input: args }]);

    const refused = await agent
      .post(`/tools/crash.aggregate/call?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, arguments: '{}' })
      .expect(200);
    expect(refused.body).toEqual({ ok: false, status: 400, error: INVALID });
    const notJson = await agent
      .post(`/tools/apm.search/call?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, arguments: '[1]' })
      .expect(400);
    expect(notJson.body.error.error).toBe('invalid_input');
    // No CSRF token: refused before anything is called.
    const count = gateway.calls.length;
    await agent
      .post(`/tools/apm.search/call?project=${u.projectId}`)
      .type('form')
      .send({ arguments: '{}' })
      .expect(403);
    expect(gateway.calls.length).toBe(count);
  });

  it("name the page's project on a drawn answer, which is how the host knows where to send them", async () => {
    const { agent, u } = await signedIn('tools-view-project');
    const csrf = csrfIn((await agent.get('/tools/release.health').expect(200)).text);
    const drawn = await agent
      .post(`/tools/release.health?project=${u.projectId}`)
      .type('form')
      .send({ _csrf: csrf, mode: 'json', input_json: '{}' })
      .expect(200);
    expect(drawn.text).toMatch(
      new RegExp(`<figure class="tool-answer" id="tool-answer"[^>]* data-project="${u.projectId}"`),
    );
  });
});
