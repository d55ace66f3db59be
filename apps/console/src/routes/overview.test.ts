import { readFileSync } from 'node:fs';
import { SECRET } from '@svc/identity/harness';
import request from 'supertest';
import { createIdentityApi } from '../identity-api';
import { newIssues, recentVersions, slowestOperations } from '../overview/panels';
import { type ConsoleTestBed, csrfIn, startConsoleTestBed } from '../testing/console-harness';
import { type FakeGateway, startFakeGateway } from '../testing/fake-gateway';
import { createToolCaller, type OpenApiDocument } from '../tool-calls';

// The overview over a real identity and the real tool caller, against a scripted gateway on
// loopback (the stack's real contract): where sign-in lands, each panel on its own, a refused
// tool said as such. The same page against the real gateway and backends, its numbers against
// the tools' answers and in Chromium at 390 px: apps/standalone/src/e2e/overview.e2e.test.ts.

const contract = JSON.parse(
  readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8'),
) as OpenApiDocument;

const TO = '2026-11-29T10:00:00.000Z';
const WINDOW = { from: '2026-11-15T10:00:00.000Z', to: TO };
const sig = (signature: string, count: number, first_seen: string) => ({
  signature,
  error_type: 'TypeError',
  count,
  share: count / 10,
  first_seen,
  last_seen: TO,
  first_app_version: '2.5.0',
  last_app_version: '2.5.0',
});
const ANSWERS: Record<string, unknown> = {
  'analytics.dimensions': {
    window: WINDOW,
    dimensions: {
      app_version: { values: ['2.9.0', '2.10.0', '2.4.1'].map((value) => ({ value, count: 1 })) },
    },
  },
  'release.health': {
    window: WINDOW,
    releases: [
      {
        version: '2.10.0',
        found: true,
        sessions: 12,
        crash_free_session_rate: 0.75,
        score: 71.5,
        grade: 'C',
      },
      {
        version: '2.9.0',
        found: false,
        sessions: 0,
        crash_free_session_rate: null,
        score: null,
        grade: null,
      },
      { version: '2.4.1', found: true, sessions: 3, crash_free_session_rate: 1, score: 96, grade: 'A' },
    ],
  },
  'crash.stats': {
    window: WINDOW,
    app_version: null,
    total: 10,
    affected_users: 4,
    signature_count: 2,
    signatures: [
      sig('<b>old</b>', 7, '2026-10-01T00:00:00.000Z'),
      sig('fresh', 3, '2026-11-27T00:00:00.000Z'),
    ],
    daily: [],
  },
};

let bed: ConsoleTestBed;
let gateway: FakeGateway;
beforeAll(async () => {
  bed = await startConsoleTestBed();
  gateway = await startFakeGateway({
    openapi: contract,
    answer: (tool) =>
      tool in ANSWERS
        ? { status: 200, body: ANSWERS[tool] }
        : { status: 404, body: { error: 'not_found', message: 'Unknown tool.' } },
  });
});
afterAll(async () => {
  await gateway.close();
  await bed.close();
});

function overviewApp() {
  const identity = createIdentityApi({ identityUrl: bed.identityUrl, internalSecret: SECRET });
  return bed.consoleApp({ tools: createToolCaller({ gatewayUrl: gateway.url, identity }) }).app;
}

async function signedIn(name: string) {
  const u = await bed.user(name);
  const agent = request.agent(overviewApp());
  const form = await agent.get('/login').expect(200);
  const res = await agent
    .post('/login')
    .type('form')
    .send({ _csrf: csrfIn(form.text), email: u.email, password: u.password });
  return { agent, u, landing: res };
}

const fieldsOf = (html: string, field: string) =>
  [...html.matchAll(new RegExp(`<data data-field="${field}" value="([^"]*)"`, 'g'))].map((m) => m[1]);

describe('the overview', () => {
  it('is where sign-in lands, and where / leads; its panels load on their own', async () => {
    const { agent, u, landing } = await signedIn('overview-landing');
    expect(landing.status).toBe(303);
    expect(landing.headers.location).toBe('/overview');
    expect((await agent.get('/').expect(303)).headers.location).toBe('/overview');
    const before = gateway.calls.length;
    const page = await agent.get('/overview').expect(200);
    // The page itself calls nothing: each panel is fetched by the script (or opened without it).
    expect(gateway.calls.length).toBe(before);
    for (const id of ['releases', 'crashes', 'operations'])
      expect(page.text).toContain(
        `data-panel-src="/overview/panels/${id}?project=${u.projectId}&amp;fragment=1"`,
      );
    expect(page.text).toContain('<script src="/static/overview.js" defer></script>');
    expect(page.text).toContain('<script src="/static/view-host.js" defer></script>');
    expect(page.text).toContain('aria-current="page">Overview</a>');
  });

  it('says in words what the tools answered, draws each answer with its view and links the call', async () => {
    const { agent, u } = await signedIn('overview-panels');
    const releases = (await agent.get('/overview/panels/releases?fragment=1').expect(200)).text;
    const versions = recentVersions(ANSWERS['analytics.dimensions']);
    expect(versions).toEqual(['2.10.0', '2.9.0', '2.4.1']);
    expect(gateway.calls.at(-1)).toMatchObject({
      tool: 'release.health',
      input: { versions: versions.join(','), days: 14 },
    });
    expect(fieldsOf(releases, 'score')).toEqual(['71.5', '96']);
    expect(releases).toContain('data-tool-view="/views/release-health.html"');
    const runner = new URLSearchParams({
      project: u.projectId,
      input: JSON.stringify({ versions: versions.join(','), days: 14 }),
    });
    expect(releases).toContain(`href="/tools/release.health?${runner.toString().replace(/&/g, '&amp;')}"`);
    expect(releases).toContain(`href="/assistant?project=${u.projectId}&amp;q=How+healthy`);

    const crashes = (await agent.get('/overview/panels/crashes?fragment=1').expect(200)).text;
    const stats = ANSWERS['crash.stats'] as Parameters<typeof newIssues>[0];
    expect(fieldsOf(crashes, 'total')).toEqual([String(stats.total)]);
    expect(newIssues(stats).map((s) => s.signature)).toEqual(['fresh']);
    expect(/data-list="new-issues">([\s\S]*?)<\/ol>/.exec(crashes)![1]).toContain('data-signature="fresh"');
    expect(crashes).not.toContain('<b>old</b>');
    expect(crashes).toContain('<code>&lt;b>old&lt;/b></code>');
  });

  it('says when a tool cannot be called, with its capability, and keeps the other panels', async () => {
    const { agent } = await signedIn('overview-refused');
    const operations = (await agent.get('/overview/panels/operations?fragment=1').expect(200)).text;
    expect(operations).toContain('data-panel-state="unavailable"');
    expect(operations).toContain('You cannot call <code>trace.aggregate</code> in this project');
    expect(operations).toContain('(capability <code>vis_trace</code>)');
    expect(operations).not.toContain('data-tool-view');
    // Without JavaScript, the panel is a page of its own.
    const page = await agent.get('/overview/panels/operations').expect(200);
    expect(page.text).toContain('<h1>Slowest operations');
    expect((await agent.get('/overview/panels/nope?fragment=1')).status).toBe(404);
    expect(slowestOperations({ operations: [] })).toEqual([]);
  });

  it('sends a visitor without a session to sign-in', async () => {
    const app = overviewApp();
    for (const path of ['/overview', '/overview/panels/crashes?fragment=1']) {
      const res = await request(app).get(path).expect(303);
      expect(res.headers.location).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
  });

  it('opens the runner with a linked call filled in, without running it', async () => {
    const { agent } = await signedIn('overview-runner');
    const before = gateway.calls.length;
    const input = { days: 14, app_version: '2.5.0' };
    const page = await agent
      .get(`/tools/crash.stats?input=${encodeURIComponent(JSON.stringify(input))}`)
      .expect(200);
    expect(gateway.calls.length).toBe(before);
    expect(page.text).toMatch(/name="in\.days"[^>]*value="14"/);
    expect(page.text).toMatch(/name="in\.app_version"[^>]*value="2\.5\.0"/);
    expect(page.text).not.toContain('id="result"');
  });
});
