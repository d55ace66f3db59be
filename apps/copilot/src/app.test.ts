import { silentLogger } from '@svc/logger';
import { createNoopMetrics } from '@svc/metrics';
import { verifyRunOutput, verifyRunSessionOutput } from '@svc/tools-verify';
import { loadCopilotConfig } from './config';
import { CLAIM_FORMS } from './grammar/grammar';
import { ALL_ACCESS, type CopilotHarness, SECRET, startCopilotHarness } from './testing/harness';
import { wireCopilot } from './wiring';

let h: CopilotHarness;
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const UNKNOWN_TRACE = 'ffffffffffffffffffffffffffffffff';

const iso = (msAgo: number) => new Date(h.nowMs - msAgo).toISOString();
const at = (start: number, offsetMs: number) => new Date(start + offsetMs).toISOString();

beforeAll(async () => {
  h = await startCopilotHarness('copilot_app');
  const day = 86_400_000;
  const start = h.nowMs - 3_600_000;
  await h.ingest({
    // Version 3.0.0: 4 sessions, one crashed: 75% crash-free.
    sessions: ['s1', 's2', 's3', 's4'].map((id, i) => ({
      session_id: id,
      user_id: `u${i}`,
      started_at: iso((i + 1) * day),
      status: id === 's4' ? 'crashed' : 'ok',
      platform: 'ios',
      app_version: '3.0.0',
    })),
    // One trace: mobile-app (300 ms) -> api-gateway (+10 ms, 250 ms) -> postgres (+20 ms, 50 ms, error).
    spans: [
      { span_id: 'a000000000000001', service: 'mobile-app', operation: 'GET /x', off: 0, ms: 300 },
      {
        span_id: 'a000000000000002',
        parent: 'a000000000000001',
        service: 'api-gateway',
        operation: 'GET /x',
        off: 10,
        ms: 250,
      },
      {
        span_id: 'a000000000000003',
        parent: 'a000000000000002',
        service: 'postgres',
        operation: 'SELECT x',
        off: 20,
        ms: 50,
        error: true,
      },
    ].map((s) => ({
      trace_id: TRACE,
      span_id: s.span_id,
      ...(s.parent ? { parent_span_id: s.parent } : {}),
      kind: 'server',
      status: s.error ? 'error' : 'ok',
      operation: s.operation,
      service: s.service,
      start_time: at(start, s.off),
      duration_ms: s.ms,
    })),
  });
});

afterAll(async () => {
  await h?.close();
});

const run = (query: string, options?: Parameters<CopilotHarness['tool']>[3], base = h.plain) =>
  h.tool(base, 'verify.run', { query }, options);
const session = (
  input: Record<string, unknown>,
  options?: Parameters<CopilotHarness['tool']>[3],
  base = h.plain,
) => h.tool(base, 'verify.run_session', input, options);

describe('the internal endpoint', () => {
  it('answers health, saying whether an LLM parser is configured', async () => {
    expect(await (await fetch(`${h.plain}/healthz`)).json()).toEqual({ status: 'ok', parser: 'grammar' });
    expect(await (await fetch(`${h.withLlm}/healthz`)).json()).toEqual({
      status: 'ok',
      parser: 'grammar+llm',
    });
  });

  it('refuses a missing or wrong internal secret, an unknown tool, a bad project id, a missing actor', async () => {
    expect(
      (await run('release 3.0.0 grade is at least B', { secret: 'wrong-secret-wrong-secret' })).status,
    ).toBe(401);
    expect((await h.tool(h.plain, 'verify.nope', {})).status).toBe(404);
    expect((await h.tool(h.plain, 'log.search', { search: 'x' })).status).toBe(404);
    expect((await run('release 3.0.0 grade is at least B', { project: '..%2Fx' })).status).toBe(400);
    const noActor = await run('release 3.0.0 grade is at least B', { actor: null });
    expect(noActor.status).toBe(400);
    expect(noActor.body.message).toContain('x-svc-actor');
  });

  it('validates input with the tool schema: exactly one of trace_id and trace_ids', async () => {
    const both = await session({ trace_id: TRACE, trace_ids: [TRACE], expectation: 'no error span' });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_input');
    expect((await run('')).status).toBe(400);
  });

  it('answers 503 when the core cannot be reached, without its error text', async () => {
    const orphan = wireCopilot(
      loadCopilotConfig({ SVC_INTERNAL_SECRET: SECRET, SVC_OBSERVABILITY_ENDPOINT: 'http://127.0.0.1:9' }),
      { logger: silentLogger, metrics: createNoopMetrics() },
    );
    const server = orphan.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as { port: number };
      const res = await h.tool(`http://127.0.0.1:${port}`, 'verify.run', {
        query: 'release 3.0.0 grade is at least B',
      });
      expect(res.status).toBe(503);
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    } finally {
      server.close();
      await orphan.close();
    }
  });
});

describe('verify.run on a real core', () => {
  it('a release claim: one release.health call, its numbers in the evidence', async () => {
    const { status, body } = await run('release 3.0.0 crash-free rate is at least 75%');
    expect(status).toBe(200);
    expect(verifyRunOutput.parse(body)).toEqual(body);
    expect(body).toMatchInlineSnapshot(`
{
  "claim": {
    "form": "release <v> crash-free rate is (above | below | at least | at most) <x>% [over <d> days]",
    "parsed": {
      "comparison": "at_least",
      "days": 14,
      "rate": 0.75,
      "version": "3.0.0",
    },
    "text": "release 3.0.0 crash-free rate is at least 75%",
    "via": "grammar",
  },
  "closest_forms": [],
  "evidence": [
    {
      "observed": "Version 3.0.0: 4 sessions, crash-free sessions 75%, score 28.57, grade F.",
      "parameters": {
        "days": 14,
        "version": "3.0.0",
      },
      "step": 1,
      "tool": "release.health",
    },
  ],
  "reason": "Version 3.0.0 has 75% crash-free sessions, at least 75%.",
  "suggested_query": null,
  "verdict": "supported",
}
`);
    expect((await run('release 3.0.0 crash-free rate is above 75%')).body.verdict).toBe('refuted');
    const unknown = await run('release 9.9.9 crash-free rate is above 75%');
    expect(unknown.body).toMatchObject({
      verdict: 'inconclusive',
      reason: 'Version 9.9.9 has no data in the last 14 days.',
    });
  });

  it("keeps to the caller's capabilities: no trace evidence without vis_trace", async () => {
    const claim = 'p99 of operation "SELECT x" is below 100 ms';
    expect((await run(claim)).body).toMatchObject({
      verdict: 'supported',
      reason: 'The p99 of "SELECT x" is 50 ms, below 100 ms.',
    });
    const noTraces = await run(claim, { actor: { ...ALL_ACCESS, capabilities: ['vis_ai_verifier'] } });
    expect(noTraces.body).toMatchObject({ verdict: 'inconclusive', evidence: [] });
    expect(noTraces.body.reason).toContain('vis_trace');
    // An actor that names no capabilities is treated as having none.
    const { capabilities: _, ...bare } = ALL_ACCESS;
    expect((await run(claim, { actor: bare })).body.verdict).toBe('inconclusive');
  });

  it('a claim outside the grammar, without an LLM: inconclusive, no data asked, the closest forms', async () => {
    const requests = h.llm.requests.length;
    const { body } = await run('the checkout endpoint got slower after the release');
    expect(body).toMatchObject({ verdict: 'inconclusive', claim: null, evidence: [] });
    expect((body.closest_forms as string[])[0]).toMatch(/^\(p50 \| p99\) of operation/);
    expect(body.suggested_query).toBeNull();
    expect(h.llm.requests.length).toBe(requests);
  });

  it('an operation name with spaces left unquoted: inconclusive, the quoted query suggested', async () => {
    const { body } = await run('p99 of operation GET /api/v1/feed is below 300 ms');
    expect(body).toMatchObject({
      verdict: 'inconclusive',
      claim: null,
      evidence: [],
      suggested_query: 'p99 of operation "GET /api/v1/feed" is below 300 ms',
    });
    expect(body.reason).toContain('p99 of operation "GET /api/v1/feed" is below 300 ms');
    expect((body.closest_forms as string[])[0]).toMatch(/^\(p50 \| p99\) of operation/);
    // The suggestion reads: asked as suggested, the claim is checked.
    const quoted = await run(body.suggested_query as string);
    expect(quoted.body).toMatchObject({ claim: { via: 'grammar' }, suggested_query: null });
  });
});

describe('verify.run with the optional LLM (a stub API)', () => {
  it('restates free text into the grammar; the checker decides, the chain says so', async () => {
    h.llm.says('release 3.0.0 crash-free rate is at least 70%');
    const before = h.llm.requests.length;
    const { body } = await run('Is 3.0.0 stable enough?', {}, h.withLlm);
    expect(body).toMatchObject({
      verdict: 'supported',
      claim: { via: 'llm', text: 'release 3.0.0 crash-free rate is at least 70%' },
      evidence: [{ tool: 'release.health', parameters: { version: '3.0.0', days: 14 } }],
    });
    const request = h.llm.requests[before]!;
    expect(request.authorization).toBe('Bearer sk-test-key');
    expect(request.body).toMatchObject({ model: 'test-model', temperature: 0 });
    const [system, user] = request.body.messages;
    for (const form of CLAIM_FORMS) expect(system!.content).toContain(form);
    expect(user).toEqual({ role: 'user', content: 'Is 3.0.0 stable enough?' });
  });

  it('passes evidence_context to the parser only', async () => {
    h.llm.says('NONE');
    await h.tool(h.withLlm, 'verify.run', {
      query: 'is it fine?',
      evidence_context: 'we mean release 3.0.0',
    });
    expect(h.llm.requests.at(-1)!.body.messages[1]!.content).toBe(
      'is it fine?\n\nContext: we mean release 3.0.0',
    );
  });

  it('a claim already in the grammar never reaches the LLM', async () => {
    const before = h.llm.requests.length;
    expect((await run('release 3.0.0 crash-free rate is at least 70%', {}, h.withLlm)).body.verdict).toBe(
      'supported',
    );
    expect(h.llm.requests.length).toBe(before);
  });

  it.each([
    ['answers NONE', () => h.llm.says('NONE'), 'found none of the forms'],
    [
      'restates into something the grammar cannot read',
      () => h.llm.says('release 3.0.0 is great, trust me'),
      'is not one either',
    ],
    [
      'fails',
      () => (h.llm.answer = { status: 500, body: { error: 'model overloaded: secret detail' } }),
      'could not be reached',
    ],
    [
      'answers no content',
      () => (h.llm.answer = { status: 200, body: { choices: [] } }),
      'could not be reached',
    ],
    ['never answers (timeout)', () => (h.llm.answer = 'hang'), 'could not be reached'],
  ])('the LLM %s: inconclusive, never a guess', async (_case, arrange, reason) => {
    arrange();
    const { status, body } = await run('did things get better?', {}, h.withLlm);
    expect(status).toBe(200);
    expect(body).toMatchObject({ verdict: 'inconclusive', claim: null, evidence: [] });
    expect(body.reason).toContain(reason);
    expect(JSON.stringify(body)).not.toContain('secret detail');
  });

  it('restates an expectation part the grammar cannot read', async () => {
    h.llm.says('no span over 200 ms');
    const { body } = await session(
      { trace_id: TRACE, expectation: 'nothing slower than a fifth of a second' },
      {},
      h.withLlm,
    );
    expect(body).toMatchObject({
      verdict: 'refuted',
      unparsed: [],
      expectations: [
        {
          expectation: 'nothing slower than a fifth of a second (read as: no span over 200 ms)',
          verdict: 'refuted',
        },
      ],
    });
  });
});

describe('verify.run_session on a real trace', () => {
  it('checks each expectation against the spans, with one trace.get step per trace', async () => {
    const { status, body } = await session({
      trace_id: TRACE,
      expectation:
        'no span over 200 ms; no error span; calls service mobile-app before api-gateway and calls service api-gateway before mobile-app',
      doc_refs: ['docs/checkout.md'],
      code_scope: 'services/checkout',
    });
    expect(status).toBe(200);
    expect(verifyRunSessionOutput.parse(body)).toEqual(body);
    const results = body.expectations as {
      expectation: string;
      verdict: string;
      evidence: { tool: string; observed: string }[];
    }[];
    expect(results.map((r) => [r.expectation, r.verdict])).toEqual([
      ['no span over 200 ms', 'refuted'],
      ['no error span', 'refuted'],
      ['calls service mobile-app before api-gateway', 'supported'],
      ['calls service api-gateway before mobile-app', 'refuted'],
    ]);
    expect(results[0]!.evidence).toEqual([
      {
        step: 1,
        tool: 'trace.get',
        parameters: { trace_id: TRACE },
        observed: `In trace ${TRACE}, span "GET /x" (mobile-app) took 300 ms, over 200 ms.`,
      },
    ]);
    expect(results[1]!.evidence[0]!.observed).toBe(
      `trace ${TRACE} has 1 error span, the first "SELECT x" (postgres) at +20 ms.`,
    );
    expect(body).toMatchObject({
      verdict: 'refuted',
      unparsed: [],
      traces: [{ trace_id: TRACE, found: true, span_count: 3 }],
      doc_refs: ['docs/checkout.md'],
      code_scope: 'services/checkout',
    });
  });

  it('supported only when every expectation holds in every trace; an unknown trace is inconclusive', async () => {
    expect((await session({ trace_id: TRACE, expectation: 'no span over 300 ms' })).body.verdict).toBe(
      'supported',
    );
    const { body } = await session({ trace_ids: [TRACE, UNKNOWN_TRACE], expectation: 'no span over 300 ms' });
    expect(body).toMatchObject({
      verdict: 'inconclusive',
      traces: [
        { trace_id: TRACE, found: true },
        { trace_id: UNKNOWN_TRACE, found: false, span_count: 0 },
      ],
    });
  });

  it('an unreadable part makes a passing check inconclusive, but a failing one still refutes', async () => {
    const pass = await session({ trace_id: TRACE, expectation: 'no span over 300 ms; feels snappy' });
    expect(pass.body).toMatchObject({ verdict: 'inconclusive', unparsed: ['feels snappy'] });
    const fail = await session({ trace_id: TRACE, expectation: 'no error span; feels snappy' });
    expect(fail.body).toMatchObject({ verdict: 'refuted', unparsed: ['feels snappy'] });
  });

  it('without vis_trace: inconclusive, and no trace is read', async () => {
    const { body } = await session(
      { trace_id: TRACE, expectation: 'no error span' },
      { actor: { ...ALL_ACCESS, capabilities: ['vis_ai_verifier'] } },
    );
    expect(body).toMatchObject({ verdict: 'inconclusive', expectations: [], traces: [] });
    expect(body.reason).toContain('vis_trace');
  });
});
