import type { AuditEntry, AuditSink } from '@svc/audit';
import { type BackendClient, createBackendClient } from '@svc/backend-client';
import { silentLogger } from '@svc/logger';
import { createPromMetrics, type Metrics, readGauge } from '@svc/metrics';
import type { Principal } from '@svc/tool-kit';
import { AnswerBudget, DEFAULT_ANSWER_BUDGET, ToolExecutor, ToolRegistry } from '@svc/tool-server';
import { SECRET } from './testing/gateway-harness';
import { largeProbe } from './testing/test-tools';
import { startToolBackendFixture, type ToolBackendFixture } from './testing/tool-backend-fixture';

// Finding of a hostile run: a large answer that waited for the answer budget past its backend
// timeout kept its place in the queue; granted later, after its call had ended, its bytes were
// never given back. Held bytes grew with every such call until every tenant's large answer waited
// out its timeout (504) and the gateway had to be restarted.

const KB = 1024;
const principal = (projectId: string, orgId = 'org_1'): Principal => ({
  tokenId: `tok_${projectId}`,
  userId: 'usr_1',
  orgId,
  projectId,
  capabilities: new Set(),
});

/** An audit sink whose first write waits until `release()`: the call that made it holds its answer bytes. */
function firstWriteHeld(): AuditSink & { held: Promise<void>; release(): void; written: AuditEntry[] } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let arrived!: () => void;
  const held = new Promise<void>((r) => (arrived = r));
  let first = true;
  const written: AuditEntry[] = [];
  return {
    held,
    release,
    written,
    async write(entries) {
      if (first) {
        first = false;
        arrived();
        await gate;
      }
      written.push(...entries);
    },
  };
}

async function gauges(metrics: Metrics) {
  const text = await metrics.render();
  return {
    held: readGauge(text, 'svc_answer_budget_bytes_held'),
    waiting: readGauge(text, 'svc_answer_budget_waiting'),
  };
}

/** Polls the gauges until they read `want` (the bound of a condition is generous: a busy machine). */
async function gaugesReach(metrics: Metrics, want: { held: number; waiting: number }) {
  let seen = await gauges(metrics);
  for (let i = 0; i < 1200 && (seen.held !== want.held || seen.waiting !== want.waiting); i++) {
    await new Promise((r) => setTimeout(r, 100));
    seen = await gauges(metrics);
  }
  expect(seen).toEqual(want);
}

describe('answer budget: a reservation is given back on every path', () => {
  let core: ToolBackendFixture;
  let client: BackendClient;
  beforeAll(async () => {
    core = await startToolBackendFixture(SECRET, {
      'fixture.large': (_project, input) => ({ text: 'x'.repeat(Number(input.bytes)) }),
    });
  });
  afterAll(async () => {
    await core.close();
  });
  afterEach(() => client?.close());

  function executorWith(audit: AuditSink, metrics: Metrics, budgetBytes: number) {
    client = createBackendClient({
      name: 'core',
      baseUrl: core.url,
      internalSecret: SECRET,
      timeoutMs: 1000,
      metrics,
      logger: silentLogger,
    });
    return new ToolExecutor({
      registry: new ToolRegistry([largeProbe]),
      audit,
      backends: { core: client.asToolCaller() },
      isBackendAvailable: () => true,
      logger: silentLogger,
      metrics,
      answerBudget: new AnswerBudget({ ...DEFAULT_ANSWER_BUDGET, totalBytes: budgetBytes }, metrics),
    });
  }

  it('a large answer that waited past its deadline holds nothing once the call that blocked it ends', async () => {
    const metrics = createPromMetrics({ defaultMetrics: false });
    const audit = firstWriteHeld();
    const executor = executorWith(audit, metrics, 1024 * KB);
    const call = (projectId: string, requestId: string) =>
      executor.execute({
        principal: principal(projectId),
        tool: 'fixture.large',
        args: { bytes: 600 * KB },
        transport: 'rest',
        requestId,
      });

    // The first call holds 600 KB of the 1 MB budget while its audit record is being written.
    const first = call('prj_a', 'r1');
    await audit.held;
    // The second one's answer does not fit: it waits, then gives up (its deadline), whatever the error.
    const second = await call('prj_b', 'r2').then(
      () => 'answered',
      (err: Error) => err.name,
    );
    expect(second).not.toBe('answered');
    audit.release();
    expect((await first).value).toEqual({ text: 'x'.repeat(600 * KB) });

    // Nothing in flight: nothing held, nobody waiting, and the next large answer is served.
    await gaugesReach(metrics, { held: 0, waiting: 0 });
    expect((await call('prj_c', 'r3')).value).toEqual({ text: 'x'.repeat(600 * KB) });
    await gaugesReach(metrics, { held: 0, waiting: 0 });
  });
});
