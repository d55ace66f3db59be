import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { iterateDemoBatches } from '@svc/demo-data';
import { signIngestBody } from '@svc/observability-core';
import { hasPostgresBinaries, startThrowawayCluster, type ThrowawayCluster } from '@svc/postgres/testing';
import { type EngineFloorReport, runEngineFloor } from '../engine-floor';
import { type LoadRequest, load } from '../load';
import { loadAverage, processCpuUs, processTreeCpuUs } from '../proc-cpu';
import { FIXTURES, freePort, type Service, startProcess } from '../services';
import { median } from '../stats';
import {
  type Identity,
  MCP_ACCEPT,
  mcpSession,
  SECRET,
  startCore,
  startGateway,
  startIdentity,
  tempDir,
  toolCall,
} from './deployment';

// What one tool call costs, in CPU, in every process it passes through (the machine has two
// cores, shared: CPU a call is the figure that does not depend on what else runs). The calls go
// over every path a client has (the core's internal API, the gateway's REST and MCP), beside a
// bare official-SDK MCP server answering the same JSON in-process (the peer), in turns alternated
// round by round so drift in the machine's speed hits every path alike. CPU per process comes
// from /proc (every thread: the engine's and V8's helpers too), per turn, divided by its calls.

export const CALL_COST_GOALS = {
  /** The trivial call, every process together, µs of CPU. */
  totalUs: 5000,
  gatewayUs: 1500,
  identityUs: 500,
  coreUs: 3000,
  /** The gateway's REST throughput for a real tool over the core's own. */
  gatewayOverCore: 0.9,
  /** The gateway's MCP throughput over the bare SDK server's, same era. */
  gatewayOverBare: 0.5,
} as const;

export type ProcessName = 'gateway' | 'identity' | 'PostgreSQL' | 'core' | 'bare SDK server';
/** PostgreSQL is identity's store when the run puts it on a server (its CPU is then apart). */
export const PROCESSES: readonly ProcessName[] = [
  'gateway',
  'identity',
  'PostgreSQL',
  'core',
  'bare SDK server',
];

export interface ToolCase {
  tool: 'log.recent' | 'crash.get' | 'crash.stats';
  /** What it stands for: trivial, point lookup, analytic. */
  kind: string;
  args: Record<string, unknown>;
}

/** What one path sends for one call; `n` is the call's number (JSON-RPC ids). */
export interface PreparedCall {
  url: string;
  /** Processes this path reaches at another pid than the run's own (the baseline's gateway). */
  pids?: Partial<Record<ProcessName, number>>;
  request: (n: number) => LoadRequest;
  /** Whether an answer (status, body) is the tool's result, not an error in a 200. */
  answered: (status: number, body: string) => boolean;
}

export interface CallPath {
  name: string;
  /** The processes a call passes through (the others' CPU is read too: it should be ~0). */
  processes: readonly ProcessName[];
  /** The era's peer among the paths, for the throughput ratio. */
  peer?: string;
  prepare(tool: ToolCase): Promise<PreparedCall>;
}

export interface TurnResult {
  calls: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** µs of CPU per call, by process. */
  cpuUs: Record<ProcessName, number>;
}

export interface PathResult {
  path: string;
  tool: string;
  processes: readonly ProcessName[];
  /** Why it was not measured (a path not served yet), or its turns. */
  skipped?: string;
  turns: TurnResult[];
}

export interface CallCostReport {
  results: PathResult[];
  floor: EngineFloorReport | string;
  /** µs of CPU a second each process used while no call was made. */
  idleUsPerSecond: Record<string, number>;
  load: { before: string; after: string };
  connections: number;
  turnMs: number;
  rounds: number;
  notes: string[];
}

const JSON_HEADERS = { 'content-type': 'application/json' };
/** The demo project both the deployed core and the engine floor's ingest (less `now`). */
const DEMO = { size: 1, seed: 20261126, days: 30 } as const;
const LEGACY = '2025-06-18';
const MODERN = '2026-07-28';

/**
 * JSON-RPC ids unique over the whole run, not per turn (each turn's load counts from 0 again): a
 * legacy session sees every id once, as from a real client.
 */
function uniqueIds(): () => number {
  let last = 0;
  return () => ++last;
}

/** A 2026-07-28 tools/call: the per-request envelope in `_meta`, the method and name as headers too. */
function modernCall(tool: string, args: unknown, headers: Record<string, string>) {
  const nextId = uniqueIds();
  return (): LoadRequest => ({
    headers: {
      ...headers,
      accept: MCP_ACCEPT,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId(),
      method: 'tools/call',
      params: {
        name: tool,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'call-cost', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
}

/** The JSON-RPC message of an MCP answer, plain JSON or the one event of an SSE stream. */
function rpcMessage(body: string): { result?: { isError?: boolean; structuredContent?: unknown } } {
  const text = body.trimStart().startsWith('{')
    ? body
    : (body
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice(6) ?? '');
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

const restAnswered = (status: number, body: string) => status === 200 && body.startsWith('{');
const mcpAnswered = (status: number, body: string) => {
  const { result } = rpcMessage(body);
  return status === 200 && result !== undefined && !result.isError && result.structuredContent !== undefined;
};

interface Seeded {
  projectId: string;
  token: string;
}

/** A small demo project (logs, crashes, sessions, events), ingested through the core's API. */
async function seedSmallProject(identity: Identity, coreUrl: string): Promise<Seeded> {
  const boot = await identity.admin('/bootstrap', {
    org_name: 'Call cost',
    project_name: 'Small',
    user_email: 'cost@example.com',
  });
  const { token } = await identity.admin('/tokens', { project_id: boot.project_id });
  const key = await identity.admin('/ingest-keys', { project_id: boot.project_id });
  for (const batch of iterateDemoBatches({ ...DEMO, now: Date.now() }, 10)) {
    const { logs, crashes, sessions, events, feedback } = batch;
    const body = JSON.stringify({ logs, crashes, sessions, events, feedback });
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await fetch(`${coreUrl}/ingest/v1/batch`, {
      method: 'POST',
      headers: {
        ...JSON_HEADERS,
        'x-svc-key': key.key_id!,
        'x-svc-timestamp': String(timestamp),
        'x-svc-signature': signIngestBody(key.secret!, timestamp, body),
      },
      body,
    });
    if (!res.ok) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  }
  return { projectId: boot.project_id!, token: token! };
}

async function firstAnswer(call: PreparedCall): Promise<{ status: number; body: string }> {
  const req = call.request(0);
  const res = await fetch(call.url, { method: 'POST', headers: req.headers, body: req.body });
  return { status: res.status, body: await res.text() };
}

export interface CallCostOptions {
  turnMs: number;
  rounds: number;
  /** Only these tools (all three when empty): a profile of one call's path. */
  tools?: readonly string[];
  /** Only the paths whose name contains one of these (all when empty). */
  paths?: readonly string[];
  /** Leave out the engine's floor. */
  skipFloor?: boolean;
  connections?: number;
  warmupMs?: number;
  /**
   * The apps directory of another checkout (its gateway bundle built): its gateway also runs,
   * against the same identity and core, and each gateway path is measured through it too, as
   * "baseline ...", in the same alternated rounds (a before/after in one run).
   */
  baselineApps?: string;
  /**
   * Identity on a PostgreSQL server (a throwaway cluster, started here) instead of its embedded
   * PGlite: the store's CPU leaves identity's process, and the cluster's processes are read too.
   */
  identityOnPostgres?: boolean;
}

/** CPU so far of one process, or of PostgreSQL's postmaster with all its backends. */
const cpuOf = (p: ProcessName, pid: number) =>
  p === 'PostgreSQL' ? processTreeCpuUs(pid) : processCpuUs(pid);

export async function benchCallCost(options: CallCostOptions): Promise<CallCostReport> {
  const connections = options.connections ?? 16;
  const warmupMs = options.warmupMs ?? 1000;
  const dir = tempDir();
  const services: Service[] = [];
  const notes: string[] = [];
  const keep = <T extends Service>(s: T) => {
    services.push(s);
    return s;
  };
  let cluster: ThrowawayCluster | undefined;
  try {
    if (options.identityOnPostgres) {
      if (!hasPostgresBinaries)
        throw new Error('call-cost: identity on PostgreSQL asked, no PostgreSQL 15 binaries');
      cluster = await startThrowawayCluster();
      notes.push(
        'identity on PostgreSQL 15 (a throwaway cluster on this machine, fsync off): its CPU is the postmaster and every backend',
      );
    }
    const identity = await startIdentity(dir.path, cluster?.url);
    keep(identity.service);
    const behindIdentity: ProcessName[] = cluster ? ['identity', 'PostgreSQL'] : ['identity'];
    const core = keep(await startCore(dir.path, identity.service.url));
    const gateway = keep(await startGateway(identity.service.url, core.url));
    const baseline = options.baselineApps
      ? keep(await startGateway(identity.service.url, core.url, {}, options.baselineApps))
      : undefined;
    const seeded = await seedSmallProject(identity, core.url);
    const internal = { ...JSON_HEADERS, 'x-internal-secret': SECRET };
    const bearer = { ...JSON_HEADERS, authorization: `Bearer ${seeded.token}` };
    const coreUrl = (tool: string) => `${core.url}/internal/v1/projects/${seeded.projectId}/tools/${tool}`;

    const recent = await fetch(coreUrl('crash.recent'), {
      method: 'POST',
      headers: internal,
      body: JSON.stringify({ limit: 1 }),
    });
    const eventId = ((await recent.json()) as { items?: { event_id: string }[] }).items?.[0]?.event_id;
    if (!eventId) throw new Error('call-cost: the small project has no crash');
    const tools: ToolCase[] = (
      [
        { tool: 'log.recent', kind: 'trivial', args: { limit: 1 } },
        { tool: 'crash.get', kind: 'point lookup', args: { event_id: eventId } },
        { tool: 'crash.stats', kind: 'analytic', args: {} },
      ] as const
    ).filter((t) => !options.tools?.length || options.tools.includes(t.tool));

    // The peer answers each tool with what the core answered for the same call.
    const answers: Record<string, unknown> = {};
    for (const t of tools) {
      const res = await fetch(coreUrl(t.tool), {
        method: 'POST',
        headers: internal,
        body: JSON.stringify(t.args),
      });
      answers[t.tool] = await res.json();
    }
    const answersFile = join(dir.path, 'answers.json');
    writeFileSync(answersFile, JSON.stringify(answers));
    const barePort = await freePort();
    const bare = keep(
      await startProcess(
        'bare SDK server',
        [join(FIXTURES, 'bare-mcp-server.mjs')],
        { PORT: String(barePort), ANSWERS_FILE: answersFile },
        barePort,
        FIXTURES,
      ),
    );
    const pids: Record<ProcessName, number> = {
      gateway: gateway.pid,
      identity: identity.service.pid,
      core: core.pid,
      'bare SDK server': bare.pid,
      PostgreSQL: cluster?.pid ?? Number.NaN,
    };

    const gatewayPaths = (target: Service, prefix: string): CallPath[] => {
      const session = mcpSession(target.url, seeded.token);
      const legacyIds = uniqueIds();
      const pidOf = target === gateway ? undefined : { gateway: target.pid };
      return [
        {
          name: `${prefix}gateway REST`,
          processes: ['gateway', ...behindIdentity, 'core'],
          prepare: async (t) => ({
            url: `${target.url}/v1/tools/${t.tool}`,
            request: () => ({ headers: bearer, body: JSON.stringify(t.args) }),
            answered: restAnswered,
            ...(pidOf ? { pids: pidOf } : {}),
          }),
        },
        {
          name: `${prefix}gateway MCP legacy (${LEGACY}, session)`,
          processes: ['gateway', ...behindIdentity, 'core'],
          peer: 'bare SDK MCP legacy (stateless)',
          prepare: async (t) => {
            const headers = await session;
            return {
              url: `${target.url}/mcp`,
              request: () => ({ headers, body: toolCall(legacyIds(), t.tool, t.args) }),
              answered: mcpAnswered,
              ...(pidOf ? { pids: pidOf } : {}),
            };
          },
        },
        {
          name: `${prefix}gateway MCP modern (${MODERN})`,
          processes: ['gateway', ...behindIdentity, 'core'],
          peer: 'bare SDK MCP modern',
          prepare: async (t) => ({
            url: `${target.url}/mcp`,
            request: modernCall(t.tool, t.args, bearer),
            answered: mcpAnswered,
            ...(pidOf ? { pids: pidOf } : {}),
          }),
        },
      ];
    };
    const paths: CallPath[] = [
      {
        name: 'core internal API',
        processes: ['core'],
        prepare: async (t) => ({
          url: coreUrl(t.tool),
          request: () => ({ headers: internal, body: JSON.stringify(t.args) }),
          answered: restAnswered,
        }),
      },
      ...gatewayPaths(gateway, ''),
      ...(baseline ? gatewayPaths(baseline, 'baseline ') : []),
      {
        name: 'bare SDK MCP legacy (stateless)',
        processes: ['bare SDK server'],
        prepare: async (t) => {
          const nextId = uniqueIds();
          return {
            url: `${bare.url}/mcp`,
            request: () => ({
              headers: { ...JSON_HEADERS, accept: MCP_ACCEPT, 'mcp-protocol-version': LEGACY },
              body: toolCall(nextId(), t.tool, t.args),
            }),
            answered: mcpAnswered,
          };
        },
      },
      {
        name: 'bare SDK MCP modern',
        processes: ['bare SDK server'],
        prepare: async (t) => ({
          url: `${bare.url}/mcp`,
          request: modernCall(t.tool, t.args, JSON_HEADERS),
          answered: mcpAnswered,
        }),
      },
    ];

    const results: PathResult[] = [];
    const prepared = new Map<PathResult, PreparedCall>();
    const chosen = paths.filter(
      (p) => !options.paths?.length || options.paths.some((x) => p.name.includes(x)),
    );
    for (const t of tools)
      for (const p of chosen) {
        const call = await p.prepare(t);
        const first = await firstAnswer(call);
        const result: PathResult = { path: p.name, tool: t.tool, processes: p.processes, turns: [] };
        if (!call.answered(first.status, first.body))
          result.skipped = `not served (first answer ${first.status}: ${first.body.slice(0, 120)})`;
        else prepared.set(result, call);
        results.push(result);
      }

    const turn = async (call: PreparedCall, ms: number): Promise<TurnResult> => {
      const pidOf = (p: ProcessName) => call.pids?.[p] ?? pids[p];
      const before = PROCESSES.map((p) => cpuOf(p, pidOf(p)));
      const run = await load(call.url, { connections, durationMs: ms, request: call.request });
      const after = PROCESSES.map((p) => cpuOf(p, pidOf(p)));
      const calls = run.latency.n;
      const cpuUs = Object.fromEntries(
        PROCESSES.map((p, i) => [p, (after[i]! - before[i]!) / Math.max(1, calls)]),
      ) as Record<ProcessName, number>;
      return {
        calls,
        rps: run.requestsPerSecond,
        p50: run.latency.p50,
        p99: run.latency.p99,
        errors: run.errors,
        cpuUs,
      };
    };

    // What the processes spend with no call at all (timers, heartbeats, the engine's own).
    const measured = PROCESSES.filter((p) => Number.isFinite(pids[p]));
    const idleBefore = measured.map((p) => cpuOf(p, pids[p]));
    const idleT0 = performance.now();
    await new Promise((r) => setTimeout(r, 3000));
    const idleSeconds = (performance.now() - idleT0) / 1000;
    const idleUsPerSecond = Object.fromEntries(
      measured.map((p, i) => [p, (cpuOf(p, pids[p]) - idleBefore[i]!) / idleSeconds]),
    );

    const loadBefore = loadAverage();
    for (const call of prepared.values()) await turn(call, warmupMs);
    // Odd rounds run the paths in reverse order, so no path always follows the same one (a path
    // measured right after another would carry the machine's drift within a round, one way only).
    const order = [...prepared];
    for (let round = 0; round < options.rounds; round++)
      for (const [result, call] of round % 2 ? [...order].reverse() : order)
        result.turns.push(await turn(call, options.turnMs));

    // The engine's floor for the same SQL, and our client's path over it (engine-floor.ts).
    const floor = options.skipFloor
      ? 'engine floor left out (BENCH_CALL_COST_FLOOR=0)'
      : await runEngineFloor({
          tools,
          seed: DEMO,
          turnMs: options.turnMs,
          rounds: options.rounds,
        }).catch((err: Error) => `engine floor not measured: ${err.message}`);
    const loadAfter = loadAverage();

    return {
      results,
      floor,
      idleUsPerSecond,
      load: { before: loadBefore, after: loadAfter },
      connections,
      turnMs: options.turnMs,
      rounds: options.rounds,
      notes,
    };
  } finally {
    for (const s of services.reverse()) await s.stop().catch(() => {});
    await cluster?.stop();
    dir.remove();
  }
}

/** Median of a turn figure across rounds, and its range. */
export function spread(values: readonly number[]): { median: number; min: number; max: number } {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
