import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import {
  adminOf,
  bearer,
  callBothAcrossWindow,
  callRest,
  connectMcp,
  ingestBatch,
  newProject,
} from './support';

// experiment.results on the whole stack as `pnpm start` runs it, through MCP (official SDK client)
// and REST, on a project of its own: every expected number is computed here from what was ingested.

const HOUR = 3_600_000;
const NOW = Date.now();
const iso = (t: number) => new Date(t).toISOString();

let stack: SpawnedStack;
let token: string;
let mcp: Client;

/** control: 20 users, 5 convert; treat: 20 users, 12 convert; plus noise that must not count. */
const events: {
  timestamp: string;
  event_name: string;
  user_id: string;
  properties?: Record<string, unknown>;
}[] = [];
for (let i = 0; i < 40; i++) {
  const user = `user_${i}`;
  const variant = i % 2 ? 'treat' : 'control';
  const exposedAt = NOW - (50 + i) * HOUR;
  events.push({
    timestamp: iso(exposedAt),
    event_name: '$exposure',
    user_id: user,
    properties: { experiment_key: 'checkout_cta', variant },
  });
  // A later exposure to the other variant is ignored.
  if (i % 5 === 0)
    events.push({
      timestamp: iso(exposedAt + HOUR),
      event_name: '$exposure',
      user_id: user,
      properties: { experiment_key: 'checkout_cta', variant: variant === 'treat' ? 'control' : 'treat' },
    });
  const k = Math.floor(i / 2);
  const converts = variant === 'treat' ? k < 12 : k < 5;
  if (converts) events.push({ timestamp: iso(exposedAt + 2 * HOUR), event_name: 'purchase', user_id: user });
  // A purchase before the exposure does not convert.
  else if (i % 3 === 0)
    events.push({ timestamp: iso(exposedAt - HOUR), event_name: 'purchase', user_id: user });
}

beforeAll(async () => {
  // The test reads its own project's records: the demo beside them needs to exist, not be big.
  stack = await spawnStack({ env: { SVC_DEMO_SIZE: '0.05' } });
  const project = await newProject(adminOf(stack), 'experiment');
  token = project.token;
  const res = await ingestBatch(stack.ready.urls.core, project.key, {
    events,
    experiments: [{ experiment_key: 'checkout_cta', goal_event: 'purchase', variants: ['control', 'treat'] }],
  });
  if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  mcp = await connectMcp(stack.ready.urls.mcp, bearer(token), 'e2e-experiment');
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.dispose();
});

interface Variant {
  variant: string;
  lift: number;
  z_test: { z: number; ci_low: number; significant: boolean };
  sequential: { p_value: number };
}

async function both(args: Record<string, unknown>) {
  return (
    await callBothAcrossWindow(stack.ready.urls.gateway, mcp, bearer(token), 'experiment.results', args)
  ).rest;
}

describe('experiment.results end to end', () => {
  it('is listed over MCP, read-only, without project_id', async () => {
    const { tools } = await mcp.listTools();
    const tool = tools.find((t) => t.name === 'experiment.results');
    expect(tool?.annotations?.readOnlyHint).toBe(true);
    expect(JSON.stringify(tool?.inputSchema)).not.toContain('project_id');
  });

  it('per variant exposure, conversion, lift and the z test, the same over REST and MCP', async () => {
    const body = await both({ experiment_key: 'checkout_cta' });
    expect(body).toMatchObject({
      experiment_key: 'checkout_cta',
      found: true,
      goal_event: 'purchase',
      baseline: 'control',
    });
    const [control, treat] = body.variants as Variant[];
    expect(control).toMatchObject({
      variant: 'control',
      is_baseline: true,
      exposed: 20,
      converted: 5,
      rate: 0.25,
    });
    expect(treat).toMatchObject({ variant: 'treat', exposed: 20, converted: 12, rate: 0.6 });
    expect(treat!.lift).toBeCloseTo(1.4, 12);
    // Pooled p = 17/40; z = 0.35 / sqrt(p (1 - p) (2/20)).
    const pooled = 17 / 40;
    expect(treat!.z_test.z).toBeCloseTo(0.35 / Math.sqrt(pooled * (1 - pooled) * 0.1), 10);
    const half = 1.959963984540054 * Math.sqrt((0.25 * 0.75) / 20 + (0.6 * 0.4) / 20);
    expect(treat!.z_test.ci_low).toBeCloseTo(0.35 - half, 10);
    expect(treat!.z_test.significant).toBe(true);
    expect(treat!.sequential.p_value).toBeGreaterThan(0);
    expect(treat!.sequential.p_value).toBeLessThanOrEqual(1);
  });

  it('baseline parameter, unknown key and a bad baseline', async () => {
    const swapped = await both({ experiment_key: 'checkout_cta', baseline: 'treat' });
    expect((swapped.variants as { variant: string }[]).map((v) => v.variant)).toEqual(['treat', 'control']);
    expect(await both({ experiment_key: 'nope' })).toMatchObject({ found: false, variants: [] });
    const bad = await callRest(
      stack.ready.urls.gateway,
      'experiment.results',
      { experiment_key: 'checkout_cta', baseline: 'nope' },
      bearer(token),
    );
    expect(bad.status).toBe(400);
    const missing = await callRest(stack.ready.urls.gateway, 'experiment.results', {}, bearer(token));
    expect(missing.status).toBe(400);
  });
});
