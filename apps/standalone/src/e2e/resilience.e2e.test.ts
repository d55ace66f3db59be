import { type InProcessStack, startInProcessStack } from '../testing/in-process-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, callRest, postMcpInitialize } from './support';

// Real outages of real services: a service's HTTP server is stopped and restarted on its port.

const BREAKER = {
  volumeThreshold: 4,
  errorThresholdPercentage: 50,
  resetTimeoutMs: 1500,
  rollingCountTimeoutMs: 30_000,
};
const SECRET_MESSAGE = 'card 4242 declined for order 9001';

let stack: InProcessStack;

async function call(tool = 'log.search', args: Record<string, unknown> = { search: 'declined' }) {
  const answer = await callRest(stack.urls.gateway, tool, args, bearer(stack.token));
  return { ...answer, retryAfter: answer.headers.get('retry-after') };
}

async function mcpInitialize() {
  return (await postMcpInitialize(`${stack.urls.gateway}/mcp`, bearer(stack.token))).status;
}

beforeAll(async () => {
  stack = await startInProcessStack({ breaker: BREAKER, name: 'resilience' });
  await stack.ingest({
    logs: [{ timestamp: Date.now(), level: 'ERROR', message: SECRET_MESSAGE, source: 'backend' }],
  });
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('core down', () => {
  // First in the file so the core breaker's rolling window holds exactly one success before the
  // outage: 4 failures out of 5 calls is over the 50% threshold at the volume threshold.
  it('opens the breaker after its volume threshold, fails fast with 503 + Retry-After, and recovers', async () => {
    expect((await call()).status).toBe(200);
    await stack.stopCore();
    const failures = [];
    for (let i = 0; i < BREAKER.volumeThreshold; i++) failures.push(await call());
    for (const f of failures) {
      expect(f.status).toBe(503);
      expect(f.body.error).toBe('backend_unavailable');
    }

    // The core is back, but the breaker is open: calls fail fast and never reach it.
    await stack.startCore();
    const hitsBefore = stack.coreToolHits();
    const fast = await call();
    expect(fast.status).toBe(503);
    expect(Number(fast.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(fast.text).not.toContain('ECONNREFUSED');
    expect(stack.coreToolHits()).toBe(hitsBefore);

    // After the reset timeout a half-open trial reaches the core and closes the breaker.
    await sleep(BREAKER.resetTimeoutMs + 200);
    const recovered = await call();
    expect(recovered.status).toBe(200);
    expect(stack.coreToolHits()).toBe(hitsBefore + 1);
    expect((await call()).status).toBe(200);
  });
});

describe('identity down', () => {
  it('answers 503 on REST and MCP, never a result, and recovers when identity is back', async () => {
    expect((await call()).status).toBe(200);
    await stack.stopIdentity();
    try {
      for (let i = 0; i < 3; i++) {
        const r = await call();
        expect(r.status).toBe(503);
        expect(r.body.error).toBe('backend_unavailable');
        expect(r.retryAfter).not.toBeNull();
        expect(r.text).not.toContain('4242');
      }
      expect(await mcpInitialize()).toBe(503);
    } finally {
      await stack.startIdentity();
    }
    await sleep(BREAKER.resetTimeoutMs + 200);
    expect((await call()).status).toBe(200);
  });
});

describe('audit store down', () => {
  it('fails the call with 503 and lets no data leave; recovers when the store is back', async () => {
    await stack.db.query('ALTER TABLE audit_records RENAME TO audit_records_offline');
    try {
      const r = await call();
      expect(r.status).toBe(503);
      expect(r.body.error).toBe('backend_unavailable');
      expect(r.text).not.toContain('4242');
      expect(r.text).not.toContain('declined');
    } finally {
      await stack.db.query('ALTER TABLE audit_records_offline RENAME TO audit_records');
    }
    await sleep(BREAKER.resetTimeoutMs + 200);
    const ok = await call();
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('4242');
  });
});

describe('after the outages', () => {
  it('every holding gauge of every service returns to 0: nothing taken during the faults is kept', async () => {
    expect(await stack.holdingsIdle()).toEqual({});
  });
});
