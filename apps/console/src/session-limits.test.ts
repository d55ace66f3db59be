import {
  type ConsoleTestBed,
  csrfIn,
  recordingTools,
  signIn,
  startConsoleTestBed,
} from './testing/console-harness';

// What a session may not do: create a token once the step-up has expired, outlive its 12 hours,
// or open any page of another organization's project (no tool is even called).

let bed: ConsoleTestBed;
beforeAll(async () => {
  bed = await startConsoleTestBed();
});
afterAll(async () => {
  await bed.close();
});

const MINUTE = 60_000;

it('refuses a new token once the password check is more than 5 minutes old, and asks for it again', async () => {
  const u = await bed.user('step-up-expiry');
  const { app } = bed.consoleApp();
  const agent = await signIn(app, u);
  const csrf = csrfIn((await agent.get('/mcp').expect(200)).text);
  await agent.post('/mcp/step-up').type('form').send({ _csrf: csrf, password: u.password }).expect(303);
  const start = bed.h.clock.now;
  try {
    bed.h.clock.now = start + 5 * MINUTE - 1000;
    expect((await agent.get('/mcp').expect(200)).text).toContain('id="create-token"');
    bed.h.clock.now = start + 5 * MINUTE;
    const page = await agent.get('/mcp').expect(200);
    expect(page.text).toContain('id="step-up"');
    expect(page.text).not.toContain('id="create-token"');
    const late = await agent.post('/mcp/tokens').type('form').send({ _csrf: csrf, name: 'late', days: '1' });
    expect(late.status).toBe(403);
    expect(late.text).not.toMatch(/svc_pat_/);
  } finally {
    bed.h.clock.now = start;
  }
});

it('ends with its 12 hours: every page sends to sign-in again', async () => {
  const u = await bed.user('session-expiry');
  const { app } = bed.consoleApp();
  const agent = await signIn(app, u);
  await agent.get('/mcp').expect(200);
  const start = bed.h.clock.now;
  try {
    bed.h.clock.now = start + 12 * 60 * MINUTE;
    const res = await agent.get('/audit').expect(303);
    expect(res.headers.location).toBe('/login?next=%2Faudit');
  } finally {
    bed.h.clock.now = start;
  }
});

it.each([
  '/mcp',
  '/mcp?tab=api',
  '/traces',
  '/traces/0123456789abcdef0123456789abcdef',
  '/recall',
  '/recall/audit',
  '/recall/files/f_1',
  '/audit',
  '/tools',
  '/tools/log.search',
])("GET %s of another org's project is 404 and calls no tool", async (path) => {
  const a = await bed.user(`iso-a-${path.replace(/\W/g, '')}`);
  const b = await bed.user(`iso-b-${path.replace(/\W/g, '')}`);
  const { tools, calls } = recordingTools(() => ({
    ok: true,
    status: 200,
    result: { items: [], limit: 50, has_more: false },
  }));
  const { app } = bed.consoleApp({ tools });
  const agent = await signIn(app, a);
  const sep = path.includes('?') ? '&' : '?';
  const res = await agent.get(`${path}${sep}project=${b.projectId}`);
  expect(res.status).toBe(404);
  expect(res.text).not.toContain(b.email);
  expect(calls.filter((c) => c.projectId === b.projectId)).toEqual([]);
});
