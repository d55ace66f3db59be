import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type DemoProject,
  generateDemoProject,
  LEAKY_RELEASE,
  SLOW_CHECKOUT,
  SLOW_START_RELEASE,
} from '@svc/demo-data';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';
import { bearer, connectMcp } from './support';

// The questions the demo is built to answer, asked the way an assistant would, over MCP against
// `pnpm start`'s stack: one or two calls each. Expected answers come from the demo's own records.

let stack: SpawnedStack;
let mcp: Client;
let demo: DemoProject;

beforeAll(async () => {
  stack = await spawnStack();
  demo = generateDemoProject(stack.ready.demo!);
  mcp = await connectMcp(stack.ready.urls.mcp, bearer(stack.ready.token!));
}, STACK_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await mcp?.close();
  await stack?.dispose();
});

async function call<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const result = await mcp.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  return result.structuredContent as T;
}

interface Health {
  version: string;
  found: boolean;
  startup_p95_ms: number | null;
  grade: string | null;
}

interface SpanNode {
  operation: string;
  service: string | null;
  self_ms: number;
  orphan: boolean;
  children: SpanNode[];
}

const flatten = (nodes: SpanNode[]): SpanNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);

describe('the demo answers', () => {
  it('which release regressed startup? (release.health, one call)', async () => {
    const versions = ['2.3.0', '2.4.0', '2.4.1', '2.5.0'];
    const { releases: health } = await call<{ releases: Health[] }>('release.health', {
      versions: versions.join(','),
    });
    const slowest = [...health].sort((a, b) => b.startup_p95_ms! - a.startup_p95_ms!);
    expect(slowest[0]!.version).toBe(SLOW_START_RELEASE);
    for (const other of slowest.slice(1))
      expect(slowest[0]!.startup_p95_ms!).toBeGreaterThan(2 * other.startup_p95_ms!);
    const grade = (v: string) => health.find((h) => h.version === v)!.grade;
    expect(grade('2.4.1')).toBe('A');
    expect(['C', 'D', 'F']).toContain(grade(SLOW_START_RELEASE));
  });

  it('which sessions leak memory? (apm.memory_growth, one call)', async () => {
    const { items } = await call<{ items: { session_id: string; slope_mb_per_min: number; r2: number }[] }>(
      'apm.memory_growth',
      { limit: 3 },
    );
    const versionOf = new Map(demo.sessions.map((s) => [s.session_id, s.app_version]));
    expect(items).toHaveLength(3);
    for (const item of items) {
      expect(versionOf.get(item.session_id)).toBe(LEAKY_RELEASE);
      expect(item.slope_mb_per_min).toBeGreaterThan(2.5);
      expect(item.r2).toBeGreaterThan(0.9);
    }
  });

  it('which endpoint got slower, and where in the trace is the time? (trace.aggregate twice, trace.search, trace.get)', async () => {
    type Aggregate = { operations: { operation: string; spans: number; p50_ms: number }[] };
    const [recent, fortnight] = await Promise.all([
      call<Aggregate>('trace.aggregate', { days: 3 }),
      call<Aggregate>('trace.aggregate', { days: 14 }),
    ]);
    const before = new Map(fortnight.operations.map((o) => [o.operation, o.p50_ms]));
    const ratios = recent.operations
      .filter((o) => o.spans >= 10 && o.operation.includes(' /api/'))
      .map((o) => ({ operation: o.operation, ratio: o.p50_ms / before.get(o.operation)! }))
      .sort((a, b) => b.ratio - a.ratio);
    expect(ratios[0]!.operation).toBe(`POST ${SLOW_CHECKOUT.route}`);
    expect(ratios[0]!.ratio).toBeGreaterThan(1.3);

    const { items } = await call<{ items: { trace_id: string }[] }>('trace.search', {
      operation: `POST ${SLOW_CHECKOUT.route}`,
      min_duration_ms: 1300,
      limit: 1,
    });
    expect(items).toHaveLength(1);
    const trace = await call<{ spans: SpanNode[] }>('trace.get', { trace_id: items[0]!.trace_id });
    const [heaviest] = flatten(trace.spans).sort((a, b) => b.self_ms - a.self_ms);
    expect(heaviest).toMatchObject({ operation: 'fraud.score', service: 'risk' });
  });
});
