import { busyHoldings, readHoldings } from '@svc/metrics';
import { type Harness, startHarness } from './testing/gateway-harness';
import { modernBody, modernHeaders } from './testing/mcp-clients';
import { largeProbe } from './testing/test-tools';

// Nothing held forever: after a run of the faults a hostile client or a sick backend brings
// (large answers in a burst, answers waiting past their deadline, backend timeouts, a tripped
// breaker, callers that leave mid-call, MCP streams whose clients die), every holding gauge the
// gateway exposes returns to its idle value, 0, without a restart.

const KB = 1024;
/** Calls of the `hang` kind are answered when the test lets them go (or never). */
let letHangersGo!: () => void;
const hangers = new Promise<void>((r) => (letHangersGo = r));

async function post(h: Harness, token: string, tool: string, args: unknown, signal?: AbortSignal) {
  const res = await fetch(`${h.url}/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(args),
    ...(signal ? { signal } : {}),
  });
  await res.text();
  return res.status;
}

/** Polls the gateway's holdings until every one reads 0; fails naming those that never did. */
async function allIdle(h: Harness): Promise<Record<string, number>> {
  const started = Date.now();
  let busy = busyHoldings(await h.metrics.render());
  while (Object.keys(busy).length > 0 && Date.now() - started < 120_000) {
    await new Promise((r) => setTimeout(r, 100));
    busy = busyHoldings(await h.metrics.render());
  }
  return busy;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness(
    { answerBudgetBytes: 1024 * KB },
    {
      tools: [largeProbe],
      coreTools: {
        'fixture.large': async (_project, input) => {
          if (input.note === 'hang') await hangers;
          if (input.note === 'fail') throw new Error('backend failure');
          return { text: 'x'.repeat(Number(input.bytes)) };
        },
      },
      breaker: { resetTimeoutMs: 2_000 },
    },
  );
});
afterAll(async () => {
  letHangersGo();
  await h.close();
});

it('every holding gauge returns to 0 after bursts, timeouts, a tripped breaker and clients that left', async () => {
  const holdings = readHoldings(await h.metrics.render());
  // The gauges the gateway itself exposes (the check covers any other found in the index too).
  for (const name of [
    'svc_answer_budget_bytes_held',
    'svc_answer_budget_answers_held',
    'svc_answer_budget_waiting',
    'svc_gateway_calls_in_progress',
    'svc_gateway_mcp_sessions_in_use',
    'svc_gateway_mcp_sessions_opening',
    'svc_gateway_mcp_listen_streams',
    'svc_backend_projects_shed',
  ]) {
    expect(holdings).toHaveProperty(name);
  }
  const a = h.identity.issue({ projectId: 'proj_burst', orgId: 'org_a' }).token;
  const b = h.identity.issue({ projectId: 'proj_sick', orgId: 'org_b' }).token;
  const c = h.identity.issue({ projectId: 'proj_gone', orgId: 'org_c' }).token;

  // A burst of large answers: some served, some waiting their turn, the rest refused unread.
  const burst = await Promise.all(
    Array.from({ length: 24 }, () => post(h, a, 'fixture.large', { bytes: 600 * KB })),
  );
  expect(burst).toContain(200);
  expect(burst.every((s) => [200, 429, 503].includes(s))).toBe(true);

  // A backend that fails one project's calls until its breaker sheds it; one that times out.
  const failures = await Promise.all(
    Array.from({ length: 8 }, () => post(h, b, 'fixture.large', { bytes: 10, note: 'fail' })),
  );
  expect(failures).toContain(503);
  const timeouts = await Promise.all(
    Array.from({ length: 3 }, () => post(h, c, 'fixture.large', { bytes: 10, note: 'hang' })),
  );
  expect(timeouts.every((s) => s === 504 || s === 503)).toBe(true);

  // Callers that leave mid-call, over REST and over MCP (a listen stream, a session's GET stream).
  const leaving = Array.from({ length: 4 }, () => new AbortController());
  const left = leaving.map((ctl) =>
    post(h, a, 'fixture.large', { bytes: 10, note: 'hang' }, ctl.signal).catch(() => 'left'),
  );
  const listen = new AbortController();
  const stream = fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: modernHeaders(a, 'subscriptions/listen'),
    body: JSON.stringify(
      modernBody(1, 'subscriptions/listen', { notifications: { toolsListChanged: true } }),
    ),
    signal: listen.signal,
  });
  expect((await stream).status).toBe(200);
  await h.metrics.render().then((text) => {
    expect(readHoldings(text).svc_gateway_mcp_listen_streams).toBe(1);
  });
  for (const ctl of leaving) ctl.abort();
  listen.abort();
  expect(await Promise.all(left)).toEqual(['left', 'left', 'left', 'left']);

  expect(await allIdle(h)).toEqual({});
  // And the gateway serves as before: a large answer for a tenant that never misbehaved.
  const fresh = h.identity.issue({ projectId: 'proj_fresh', orgId: 'org_d' }).token;
  expect(await post(h, fresh, 'fixture.large', { bytes: 600 * KB })).toBe(200);
});
