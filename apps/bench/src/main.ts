import { mkdirSync, writeFileSync } from 'node:fs';
import { startBenchCore } from './core-harness';
import {
  burstTables,
  callCostTables,
  fairnessTables,
  gatewayTables,
  hostileTables,
  sizesTables,
  soakTables,
} from './report';
import type { Summary } from './stats';
import { benchAnalytics } from './suites/analytics';
import { benchCallCost } from './suites/call-cost';
import { loadCrashes, loadLogs } from './suites/data';
import { benchFairness } from './suites/fairness';
import { benchGateway } from './suites/gateway';
import { benchGoSdk, goSdkTable } from './suites/go-sdk';
import { benchBurstAlone, benchHostile } from './suites/hostile';
import { benchIngest } from './suites/ingest';
import { benchMiddleware } from './suites/middleware';
import { benchSizes } from './suites/sizes';
import { benchSoak } from './suites/soak';
import { benchTokens, tokensTables } from './suites/tokens';
import { benchTraces } from './suites/traces';

// `pnpm bench`: measured side by side in one run, printed as a table, saved under bench-results/.
// Sizes can be lowered for a quick look: BENCH_CRASHES, BENCH_LOGS, BENCH_EVENTS, BENCH_SPANS, BENCH_RUNS.
// Suites (BENCH_SUITES, comma separated): call-cost (CPU a tool call per process, every path, beside
// a bare SDK server and the engine's floor; BENCH_CALL_COST_TURN_MS, BENCH_CALL_COST_ROUNDS; for a profile, BENCH_CALL_COST_TOOLS, BENCH_CALL_COST_PATHS
// (names or parts of them, comma separated) and BENCH_CALL_COST_FLOOR=0; BENCH_CALL_COST_BASELINE=<another
// checkout>/apps runs that checkout's gateway bundle beside this one's, a before/after in one run;
// BENCH_CALL_COST_IDENTITY_DB=postgres puts identity on a throwaway PostgreSQL cluster, its CPU apart), core,
// gateway, soak, fairness (one project's flood against another's lookups), hostile (one project's worst inputs against another's lookups and ingest on
// the one-process stack, then one project's burst of large answers against another org's calls; BENCH_HOSTILE_MS
// per phase; `burst` runs that burst alone, not in the default list), analytics (product analytics, experiments), traces (performance, release
// health and traces), ingest (OTLP and SDK span throughput; BENCH_OTLP_BODIES), middleware (the
// SDK's server middleware against plain express), go (the Go SDK's middleware and round tripper
// beside bare requests, go test -bench; BENCH_GO_ROUNDS, BENCH_GO_REQUESTS), sizes (the Web SDK's bundle beside Sentry's and
// OpenTelemetry's, min and gzip bytes), tokens (tools/list in tokens, whole and per toolset, and three typical
// answers' text content before and after compaction; o200k_base). BENCH_LOAD_MS: length of each load measurement; BENCH_SOAK_MS: the soak's length;
// BENCH_TSX=1 runs services from source. For profiling services: BENCH_PROF=<app>[,<app>...] (CPU profiles in
// /tmp/prof), BENCH_TRACE_GC=<app>, BENCH_ECHO=1 (services' stdout and stderr).
const CRASHES = Number(process.env.BENCH_CRASHES ?? 1_000_000);
const LOGS = Number(process.env.BENCH_LOGS ?? 10_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const SPANS = Number(process.env.BENCH_SPANS ?? 10_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const SUITES = new Set(
  (
    process.env.BENCH_SUITES ??
    'sizes,tokens,call-cost,core,gateway,soak,fairness,hostile,analytics,traces,ingest,middleware,go'
  ).split(','),
);
const SOAK_MS = Number(process.env.BENCH_SOAK_MS ?? 60_000);
const FAIRNESS_MS = Number(process.env.BENCH_FAIRNESS_MS ?? 20_000);
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 5_000);
const HOSTILE_MS = Number(process.env.BENCH_HOSTILE_MS ?? 60_000);
const TARGET_MS = 250;

interface Row {
  name: string;
  result: Summary | string;
  target?: number;
}

function table(rows: Row[]): string {
  const head = ['benchmark', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'target p95', 'verdict'];
  const body = rows.map((r) => {
    if (typeof r.result === 'string')
      return [r.name, '-', '-', '-', '-', '-', r.target ? `<= ${r.target}` : '', r.result];
    const s = r.result;
    const verdict = r.target === undefined ? '' : s.p95 <= r.target ? 'ok' : 'MISSED';
    return [
      r.name,
      String(s.n),
      s.p50.toFixed(1),
      s.p95.toFixed(1),
      s.p99.toFixed(1),
      s.max.toFixed(1),
      r.target ? `<= ${r.target}` : '',
      verdict,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

const listOf = (value: string | undefined) => (value ? value.split(',').filter(Boolean) : []);
const rows: Row[] = [];
const notes: string[] = [];

// Seconds, not minutes: it goes first.
if (SUITES.has('sizes')) notes.push(sizesTables(await benchSizes()));

// Seconds too: tools/list and three typical answers in tokens (a small core of its own).
if (SUITES.has('tokens')) {
  const core = await startBenchCore();
  try {
    notes.push(tokensTables(await benchTokens(core)));
  } finally {
    await core.close();
  }
}

if (SUITES.has('call-cost')) {
  notes.push(
    callCostTables(
      await benchCallCost({
        turnMs: Number(process.env.BENCH_CALL_COST_TURN_MS ?? 3000),
        rounds: Number(process.env.BENCH_CALL_COST_ROUNDS ?? 3),
        tools: listOf(process.env.BENCH_CALL_COST_TOOLS),
        paths: listOf(process.env.BENCH_CALL_COST_PATHS),
        skipFloor: process.env.BENCH_CALL_COST_FLOOR === '0',
        identityOnPostgres: process.env.BENCH_CALL_COST_IDENTITY_DB === 'postgres',
        ...(process.env.BENCH_CALL_COST_BASELINE
          ? { baselineApps: process.env.BENCH_CALL_COST_BASELINE }
          : {}),
      }),
    ),
  );
}

if (SUITES.has('gateway')) {
  const report = await benchGateway(LOAD_MS);
  notes.push(gatewayTables(report));
}

if (SUITES.has('soak')) {
  notes.push(soakTables(await benchSoak(SOAK_MS)));
}

if (SUITES.has('fairness')) {
  notes.push(fairnessTables(await benchFairness(FAIRNESS_MS)));
}

if (SUITES.has('hostile')) {
  notes.push(hostileTables(await benchHostile(HOSTILE_MS)));
}

// The hostile suite's last part alone, on a stack of its own (a quicker before/after).
if (SUITES.has('burst')) {
  notes.push(burstTables(await benchBurstAlone(HOSTILE_MS)));
}

if (SUITES.has('analytics')) {
  const core = await startBenchCore();
  try {
    const analytics = await benchAnalytics(core, EVENTS, RUNS);
    rows.push(...analytics.rows);
    notes.push(...analytics.notes);
  } finally {
    await core.close();
  }
}

if (SUITES.has('ingest')) {
  const core = await startBenchCore();
  try {
    notes.push(...(await benchIngest(core, Number(process.env.BENCH_OTLP_BODIES ?? 200))));
  } finally {
    await core.close();
  }
}

if (SUITES.has('middleware')) notes.push(...(await benchMiddleware(LOAD_MS)));

if (SUITES.has('go')) notes.push(goSdkTable(benchGoSdk()));

if (SUITES.has('traces')) {
  const core = await startBenchCore();
  try {
    const traces = await benchTraces(core, SPANS, RUNS);
    rows.push(...traces.rows);
    notes.push(...traces.notes);
  } finally {
    await core.close();
  }
}

const core = SUITES.has('core') ? await startBenchCore() : undefined;
if (core)
  try {
    const big = 'prj_bench_large';
    const small = 'prj_bench_typical';
    let t0 = performance.now();
    await loadCrashes(core.ch, big, CRASHES, core.now);
    await loadCrashes(core.ch, small, Math.max(1, Math.round(CRASHES / 50)), core.now);
    const crashLoad = performance.now() - t0;
    t0 = performance.now();
    await loadLogs(core.ch, big, LOGS, core.now, 'user_heavy');
    const logLoad = performance.now() - t0;
    notes.push(
      `loaded ${CRASHES.toLocaleString()} crashes in ${(crashLoad / 1000).toFixed(1)} s, ` +
        `${LOGS.toLocaleString()} logs in ${(logLoad / 1000).toFixed(1)} s (${Math.round(LOGS / (logLoad / 1000)).toLocaleString()} rows/s in-engine)`,
    );

    const cases: [string, string, string, unknown][] = [
      [`crash.stats (${CRASHES.toLocaleString()} crashes)`, big, 'crash.stats', {}],
      ['crash.stats (typical project)', small, 'crash.stats', {}],
      [
        `crash.aggregate by signature (${CRASHES.toLocaleString()})`,
        big,
        'crash.aggregate',
        { group_by: 'signature' },
      ],
      [
        `crash.aggregate by user_id (${CRASHES.toLocaleString()})`,
        big,
        'crash.aggregate',
        { group_by: 'user_id' },
      ],
      [
        `user.detail heavy user (${LOGS.toLocaleString()} logs)`,
        big,
        'user.detail',
        { user_id: 'user_heavy' },
      ],
      [
        `user.detail typical user (${LOGS.toLocaleString()} logs)`,
        big,
        'user.detail',
        { user_id: 'user_4242' },
      ],
      [
        `log.search absent term (${LOGS.toLocaleString()} logs)`,
        big,
        'log.search',
        { search: 'zzqx-not-there' },
      ],
      [
        `log.by_user heavy user (${LOGS.toLocaleString()} logs)`,
        big,
        'log.by_user',
        { user_id: 'user_heavy' },
      ],
    ];
    for (const [name, project, tool, input] of cases) {
      rows.push({ name, result: await core.measure(project, tool, input, RUNS), target: TARGET_MS });
    }
  } finally {
    await core.close();
  }

const text = table(rows);
console.log(`\n${text}\n\n${notes.join('\n')}\n`);
mkdirSync('bench-results', { recursive: true });
writeFileSync(
  `bench-results/bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  JSON.stringify(rows, null, 2),
);
