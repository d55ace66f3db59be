import { PerRequestHTTPServerTransport, Server } from '@modelcontextprotocol/server';
import { closeWithoutStacksOnceAnswered } from './mcp-modern-exchange';
import { type Harness, startHarness } from './testing/gateway-harness';
import { MODERN_META, MODERN_VERSION, modernBody, modernHeaders, rpcAnswerOf } from './testing/mcp-clients';

// Modern requests served as exchanges (mcp-modern-exchange.ts), not by the SDK's handler: what
// that handler did for them still happens. A call whose client goes away is cancelled down to its
// backend; a shutdown closes the calls in flight; every method served this way answers as before.

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness();
  token = h.identity.issue({ projectId: 'proj_a' }).token;
});
afterAll(async () => {
  await h.close();
});

/** Waits for a condition under the suite's ceiling for one (2 min): progress, not a pause. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Long past the ceiling of a wait: a call that is not cancelled is not answered in a test. */
const NEVER_MS = 600_000;

/** A recall call answered only after `ms` (the fixture's `wait:` note): one still in flight. */
const slowCall = (id: number, ms: number) =>
  modernBody(id, 'tools/call', { name: 'fixture.recall', arguments: { note: `wait:${ms}` } });

const send = (body: unknown, method: string, name?: string, signal?: AbortSignal) =>
  fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: modernHeaders(token, method, name),
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

/** Backend requests of recall that ended cancelled (the caller gone), from the metrics. */
async function recallCancelled(): Promise<number> {
  const text = await h.metrics.render();
  return text
    .split('\n')
    .filter((l) => /^\w*backend_requests_total\{/.test(l) && l.includes('backend="recall"'))
    .filter((l) => l.includes('outcome="cancelled"'))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

it('cancels a call whose client went away, down to its backend request', async () => {
  const calls = h.recall.calls.length;
  const cancelled = await recallCancelled();
  const gone = new AbortController();
  // The backend answers after NEVER_MS; not cancelled, the request would end in the backend
  // client's timeout instead, never counted as cancelled.
  const pending = send(slowCall(41, NEVER_MS), 'tools/call', 'fixture.recall', gone.signal).catch(
    () => 'aborted',
  );
  await eventually(() => h.recall.calls.length > calls, 'the call reaching the backend');
  gone.abort();
  expect(await pending).toBe('aborted');
  let now = cancelled;
  await eventually(() => {
    void recallCancelled().then((n) => {
      now = n;
    });
    return now > cancelled;
  }, 'the backend request cancelled');
  // The audit record travels in the identity client's next batch, after the metric counted the
  // cancellation: wait for it rather than race it.
  await eventually(
    () => h.identity.audit.some((r) => r.tool === 'fixture.recall' && r.status === 'error'),
    'the call audited',
  );
  expect(h.identity.audit.findLast((r) => r.tool === 'fixture.recall')).toMatchObject({
    tool: 'fixture.recall',
    transport: 'mcp',
    status: 'error',
  });
});

it.each([
  ['tools/list', {}],
  ['server/discover', {}],
])('answers %s as one JSON body', async (method, params) => {
  const res = await send(modernBody(42, method, params), method);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/json');
  const answer = rpcAnswerOf(await res.text());
  expect(answer).toMatchObject({ jsonrpc: '2.0', id: 42 });
  expect(answer.result).toBeDefined();
});

it('refuses a revision it does not serve as the SDK does (400, unsupported version, nothing called)', async () => {
  const calls = h.core.calls.length;
  const body = modernBody(43, 'tools/call', { name: 'log.recent', arguments: { limit: 1 } });
  const meta = (body.params as { _meta: Record<string, unknown> })._meta;
  const later = {
    ...body,
    params: { ...body.params, _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
  };
  const res = await fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: { ...modernHeaders(token, 'tools/call', 'log.recent'), 'mcp-protocol-version': '2099-01-01' },
    body: JSON.stringify(later),
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ id: 43, error: { code: expect.any(Number) } });
  expect(h.core.calls.length).toBe(calls);
});

it('closes the calls in flight at shutdown: their client gets no answer, the gateway ends', async () => {
  const own = await startHarness();
  const bearer = own.identity.issue({ projectId: 'proj_a' }).token;
  const calls = own.recall.calls.length;
  const pending = fetch(`${own.url}/mcp`, {
    method: 'POST',
    headers: modernHeaders(bearer, 'tools/call', 'fixture.recall'),
    body: JSON.stringify(slowCall(44, NEVER_MS)),
  }).then(
    (res) => res.status,
    () => 'no answer',
  );
  await eventually(() => own.recall.calls.length > calls, 'the call reaching the backend');
  await own.close();
  const outcome = await pending;
  expect(outcome === 'no answer' || (typeof outcome === 'number' && outcome >= 400)).toBe(true);
});

describe('an exchange closing after its answer', () => {
  /** A server answering tools/list once `release` is called, recording the stack limit its close runs with. */
  async function exchange() {
    const server = new Server(
      { name: 'probe', version: '1' },
      { capabilities: { tools: {} }, supportedProtocolVersions: [MODERN_VERSION] },
    );
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.setRequestHandler('tools/list', async () => {
      await released;
      return { tools: [] };
    });
    const closedWith: number[] = [];
    server.onclose = () => closedWith.push(Error.stackTraceLimit);
    const transport = new PerRequestHTTPServerTransport({
      classification: { era: 'modern', revision: MODERN_VERSION },
    });
    await server.connect(transport);
    const message = { jsonrpc: '2.0' as const, id: 9, method: 'tools/list', params: { _meta: MODERN_META } };
    closeWithoutStacksOnceAnswered(transport, message.id);
    const answer = transport.handleMessage(message);
    return { transport, answer, release, closedWith };
  }

  it('builds no stack traces once answered, and restores the limit', async () => {
    const limit = Error.stackTraceLimit;
    const { answer, release, closedWith } = await exchange();
    release();
    const res = await answer;
    expect(((await res.json()) as { id: unknown }).id).toBe(9);
    await new Promise((r) => setImmediate(r));
    expect(closedWith).toEqual([0]);
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('keeps them for a close before the answer (the client gone, a shutdown)', async () => {
    const limit = Error.stackTraceLimit;
    const { transport, answer, release, closedWith } = await exchange();
    const failed = answer.catch((err: Error) => err);
    await transport.close();
    release();
    expect(closedWith).toEqual([limit]);
    expect(((await failed) as Error).stack).toBeDefined();
  });
});
