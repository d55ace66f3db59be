import type { Summary } from './stats';
import type { BurstReport, VictimPhase } from './suites/burst';
import {
  CALL_COST_GOALS,
  type CallCostReport,
  type PathResult,
  type ProcessName,
  spread,
  type TurnResult,
} from './suites/call-cost';
import { FAIRNESS_TARGET_RATIO, type FairnessReport } from './suites/fairness';
import type { Check, GatewayReport } from './suites/gateway';
import type { HostileReport } from './suites/hostile';
import { SIZE_GOAL_RATIO, type SizesReport } from './suites/sizes';
import type { SoakReport } from './suites/soak';

/** A plain text table, columns padded. */
export function textTable(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export function gatewayTables(r: GatewayReport): string {
  const measured = textTable(
    ['path', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors'],
    r.measured.map((m) => [
      m.name,
      String(m.connections),
      m.result.requestsPerSecond.toFixed(0),
      m.result.latency.p50.toFixed(2),
      m.result.latency.p99.toFixed(2),
      String(m.result.errors),
    ]),
  );
  const checks = checkTable(r.checks);
  const rss = textTable(
    ['process', 'peak RSS MB'],
    Object.entries(r.rss).map(([k, v]) => [k, v.toFixed(0)]),
  );
  return ['Gateway', measured, '', checks, '', rss, ...r.notes].join('\n');
}

function checkTable(checks: Check[]): string {
  return textTable(
    ['target', 'wanted', 'measured', 'verdict'],
    checks.map((c) => [c.name, c.target, c.measured, c.ok ? 'ok' : 'MISSED']),
  );
}

export function soakTables(r: SoakReport): string {
  const statuses = Object.entries(r.statuses)
    .map(([s, n]) => `${n} x ${s}`)
    .join(', ');
  return [
    '',
    `Soak: ${r.calls} calls (${r.requestsPerSecond.toFixed(0)} req/s), ${statuses}; revoke returned in ${r.revokeMs} ms`,
    checkTable(r.checks),
  ].join('\n');
}

export function fairnessTables(r: FairnessReport): string {
  const row = (name: string, s: Summary) => [
    name,
    String(s.n),
    s.p50.toFixed(1),
    s.p99.toFixed(1),
    s.max.toFixed(1),
  ];
  const calls = textTable(
    ["project B's crash.get", 'n', 'p50 ms', 'p99 ms', 'max ms'],
    r.paths.flatMap((p) => [
      row(`${p.path}, unloaded`, p.unloaded),
      row(`${p.path}, during A's flood`, p.flooded),
    ]),
  );
  const checks = checkTable(
    r.paths.flatMap((p) => {
      const ratio = p.flooded.p99 / p.unloaded.p99;
      return [
        {
          name: `${p.path}: B's p99 flooded / unloaded`,
          target: `<= ${FAIRNESS_TARGET_RATIO}x`,
          measured: `${ratio.toFixed(2)}x (p50 ${(p.flooded.p50 / p.unloaded.p50).toFixed(2)}x)`,
          ok: ratio <= FAIRNESS_TARGET_RATIO,
        },
        {
          name: `${p.path}: B's failed calls`,
          target: '0',
          measured: String(p.bFailures),
          ok: p.bFailures === 0,
        },
      ];
    }),
  );
  const floods = r.paths.map((p) => {
    const statuses = Object.entries(p.flood.statuses)
      .map(([s, n]) => `${n} x ${s}`)
      .join(', ');
    const cpu = Object.entries(p.cpu)
      .map(([name, s]) => `${name} ${s.toFixed(1)} s`)
      .join(', ');
    return (
      `${p.path}: A's flood ${statuses} (${p.flood.requestsPerSecond.toFixed(1)} calls/s, p50 ` +
      `${p.flood.latency.p50.toFixed(0)} ms); CPU while B was measured: ${cpu}; ` +
      `the machine left ${p.idleCores.toFixed(2)} of ${p.cores} cores idle`
    );
  });
  return [
    '',
    `Fairness, A: ${r.floodConnections} connections`,
    calls,
    '',
    checks,
    ...floods,
    ...r.notes,
  ].join('\n');
}

export function hostileTables(r: HostileReport): string {
  const phase = (name: string, p: HostileReport['unloaded']) => [
    name,
    String(p.lookups.n),
    p.lookups.p50.toFixed(1),
    p.lookups.p99.toFixed(1),
    p.lookups.max.toFixed(0),
    p.lookupFailures === 0
      ? '0'
      : `${p.lookupFailures} (${Object.entries(p.lookupStatuses)
          .map(([status, n]) => `${n} x ${status}`)
          .join(', ')})`,
    `${p.ingestOk}/${p.ingestTotal}`,
    p.health.p99.toFixed(1),
    p.health.max.toFixed(0),
  ];
  const victim = textTable(
    [
      'project B (one-process stack)',
      'lookups',
      'p50 ms',
      'p99 ms',
      'max ms',
      'failed',
      'ingest ok',
      '/healthz p99',
      '/healthz max',
    ],
    [phase('unloaded', r.unloaded), phase("during A's worst inputs", r.hostile)],
  );
  const byInput = new Map<string, { n: number; ms: number[]; answers: Map<string, number> }>();
  for (const a of r.attacker) {
    const row = byInput.get(a.name) ?? { n: 0, ms: [] as number[], answers: new Map<string, number>() };
    row.n++;
    row.ms.push(a.ms);
    for (const s of a.answers) row.answers.set(s, (row.answers.get(s) ?? 0) + 1);
    byInput.set(a.name, row);
  }
  const attacker = textTable(
    ["A's input", 'sent', 'median ms', 'answers'],
    [...byInput].map(([name, row]) => [
      name,
      String(row.n),
      row.ms.sort((x, y) => x - y)[Math.floor(row.ms.length / 2)]!.toFixed(0),
      [...row.answers].map(([s, n]) => `${n} x ${s}`).join(', '),
    ]),
  );
  const b = r.hostile;
  const verdicts = [
    `B's ingest under A's inputs: ${b.ingestOk}/${b.ingestTotal} (target: all) ${b.ingestOk === b.ingestTotal ? 'ok' : 'MISSED'}`,
    `B's lookup p99 under A's inputs: ${(b.lookups.p99 / r.unloaded.lookups.p99).toFixed(2)}x unloaded (target <= 2x)`,
    `longest event-loop hold (main-thread CPU): ${r.maxHoldMs.toFixed(0)} ms, ${r.longHolds} over 50 ms (target: none)`,
    `stack peak RSS: ${r.peakRssMb.toFixed(0)} MB`,
  ];
  return ['', 'Hostile load', victim, '', attacker, ...verdicts, ...r.notes, burstTables(r.burst)].join('\n');
}

/** The burst of large answers (burst.ts): B's calls before, during and after A's burst. */
export function burstTables(r: BurstReport): string {
  const rate = (p: VictimPhase) =>
    `${p.ok}/${p.calls} (${((100 * p.ok) / Math.max(1, p.calls)).toFixed(1)}%)`;
  const statuses = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([status, n]) => `${n} x ${status}`)
      .join(', ');
  const phase = (name: string, p: VictimPhase) => [
    name,
    rate(p),
    p.latency.p50.toFixed(1),
    p.latency.p99.toFixed(1),
    p.large.p99.toFixed(1),
    statuses(p.statuses),
  ];
  const victim = textTable(
    ['project B (another org)', 'ok', 'p50 ms', 'p99 ms', 'large p99 ms', 'answers'],
    [phase("before A's burst", r.before), phase("during A's burst", r.during), phase('after it', r.after)],
  );
  const held = Object.keys(r.heldAfter).length === 0 ? 'none' : JSON.stringify(r.heldAfter);
  return [
    '',
    `Burst of large answers: A = ${r.attackerCalls} calls of analytics.cohorts (${(r.attackerAnswerBytes / 1e6).toFixed(2)} MB each), ` +
      `2 tokens x 32 at once; B reads log.recent of 1,000 (${(r.victimAnswerBytes / 1e6).toFixed(2)} MB) and a crash`,
    victim,
    `A's answers: ${statuses(r.attacker)}`,
    `held after the burst (holding gauges above 0 after ${(r.idleAfterMs / 1000).toFixed(1)} s): ${held}; ` +
      `answer budget: ${r.budgetAfter.bytesHeld} bytes held, ${r.budgetAfter.waiting} waiting (target: 0, 0)`,
    `B's success during / after A's burst: ${rate(r.during)} / ${rate(r.after)} (target: all after, B never shed for A)`,
  ].join('\n');
}

const range = (values: readonly number[], digits = 0) => {
  const s = spread(values);
  return `${s.median.toFixed(digits)} [${s.min.toFixed(digits)}-${s.max.toFixed(digits)}]`;
};

/** The call-cost suite: per tool, every path's CPU a call by process, throughput and latency; the goals. */
export function callCostTables(r: CallCostReport): string {
  const out: string[] = [
    '',
    `Cost per tool call: ${r.connections} connections, ${r.rounds} alternated rounds of ${r.turnMs} ms per path; ` +
      `medians [range]; CPU µs a call per process, from /proc; load average ${r.load.before} before, ${r.load.after} after`,
  ];
  // Identity's store has a column of its own only when it ran as a server of its own.
  const onServer = r.results.some((x) => x.processes.includes('PostgreSQL'));
  for (const tool of [...new Set(r.results.map((x) => x.tool))]) {
    const rows = r.results
      .filter((x) => x.tool === tool)
      .map((x) => {
        if (x.skipped)
          return [x.path, x.skipped.slice(0, 60), '', '', '', '', '', '', '', ...(onServer ? [''] : [])];
        const per = (p: ProcessName) => x.turns.map((t) => t.cpuUs[p]);
        const total = x.turns.map((t) => x.processes.reduce((sum, p) => sum + t.cpuUs[p], 0));
        const cell = (p: ProcessName) => (x.processes.includes(p) ? range(per(p)) : '-');
        return [
          x.path,
          range(x.turns.map((t) => t.rps)),
          range(
            x.turns.map((t) => t.p50),
            1,
          ),
          range(
            x.turns.map((t) => t.p99),
            1,
          ),
          cell('gateway'),
          cell('identity'),
          ...(onServer ? [cell('PostgreSQL')] : []),
          cell('core'),
          cell('bare SDK server'),
          range(total),
        ];
      });
    out.push(
      '',
      textTable(
        [
          tool,
          'calls/s',
          'p50 ms',
          'p99 ms',
          'gateway µs',
          'identity µs',
          ...(onServer ? ['PostgreSQL µs'] : []),
          'core µs',
          'bare SDK µs',
          'total µs',
        ],
        rows,
      ),
    );
    const errors = r.results
      .filter((x) => x.tool === tool)
      .reduce((n, x) => n + x.turns.reduce((m, t) => m + t.errors, 0), 0);
    if (errors) out.push(`${tool}: ${errors} answers were not 200`);
  }
  out.push('', callCostChecks(r), ...baselineComparison(r));
  if (typeof r.floor === 'string') out.push('', r.floor);
  else
    out.push(
      '',
      `The engine's floor for the same SQL, and our layers over it (one process, ${r.floor.concurrency} callers at once, same demo project):`,
      textTable(
        ['tool', 'layer', 'queries', 'calls/s', 'CPU µs a call'],
        r.floor.layers.map((l) => [
          l.tool,
          l.layer,
          String(l.queries),
          range(l.turns.map((t) => t.rps)),
          range(l.turns.map((t) => t.cpuUsPerCall)),
        ]),
      ),
    );
  out.push(
    `idle CPU (no calls): ${Object.entries(r.idleUsPerSecond)
      .map(([p, us]) => `${p} ${(us / 1000).toFixed(1)} ms/s`)
      .join(', ')}`,
    ...r.notes,
  );
  return out.join('\n');
}

/**
 * With a baseline checkout's gateway in the run: each gateway path here over the same path through
 * the baseline, round by round (both took their turns in the same rounds), medians [range].
 */
function baselineComparison(r: CallCostReport): string[] {
  const rows: string[][] = [];
  for (const base of r.results.filter((x) => x.path.startsWith('baseline ') && x.turns.length > 0)) {
    const here = r.results.find(
      (x) => x.tool === base.tool && x.path === base.path.slice('baseline '.length) && x.turns.length > 0,
    );
    if (!here) continue;
    const ratio = (f: (t: TurnResult) => number) =>
      range(
        here.turns.map((t, i) => f(t) / f(base.turns[i]!)),
        2,
      );
    const total = (t: TurnResult) => here.processes.reduce((sum, p) => sum + t.cpuUs[p], 0);
    rows.push([
      `${base.tool} ${here.path}`,
      ratio((t) => t.cpuUs.gateway),
      ratio((t) => t.cpuUs.identity),
      ratio((t) => t.cpuUs.core),
      ratio(total),
      ratio((t) => t.rps),
      ratio((t) => t.p50),
      ratio((t) => t.p99),
    ]);
  }
  if (rows.length === 0) return [];
  return [
    '',
    'This checkout over the baseline, per round (same rounds), medians [range]; below 1 is less:',
    textTable(
      ['path', 'gateway CPU', 'identity CPU', 'core CPU', 'total CPU', 'calls/s', 'p50', 'p99'],
      rows,
    ),
  ];
}

function callCostChecks(r: CallCostReport): string {
  const g = CALL_COST_GOALS;
  const find = (path: string, tool = 'log.recent') =>
    r.results.find((x) => x.tool === tool && x.path === path && !x.skipped && x.turns.length > 0);
  const med = (x: PathResult, f: (t: TurnResult) => number) => spread(x.turns.map(f)).median;
  const checks: Check[] = [];
  const core = find('core internal API');
  for (const x of r.results.filter((y) => y.tool === 'log.recent' && y.path.startsWith('gateway'))) {
    if (x.skipped || x.turns.length === 0) {
      checks.push({ name: `${x.path}: trivial call`, target: 'measured', measured: 'not served', ok: false });
      continue;
    }
    const cpu = (p: ProcessName) => med(x, (t) => t.cpuUs[p]);
    const total = med(x, (t) => x.processes.reduce((sum, p) => sum + t.cpuUs[p], 0));
    const us = (v: number) => `${v.toFixed(0)} µs`;
    checks.push(
      {
        name: `${x.path}: CPU a trivial call, all processes`,
        target: `<= ${g.totalUs} µs`,
        measured: us(total),
        ok: total <= g.totalUs,
      },
      {
        name: `${x.path}: gateway`,
        target: `<= ${g.gatewayUs} µs`,
        measured: us(cpu('gateway')),
        ok: cpu('gateway') <= g.gatewayUs,
      },
      {
        name: `${x.path}: identity`,
        target: `<= ${g.identityUs} µs`,
        measured: us(cpu('identity')),
        ok: cpu('identity') <= g.identityUs,
      },
      ...(x.processes.includes('PostgreSQL')
        ? [
            {
              name: `${x.path}: identity and its PostgreSQL`,
              target: `<= ${g.identityUs} µs`,
              measured: us(cpu('identity') + cpu('PostgreSQL')),
              ok: cpu('identity') + cpu('PostgreSQL') <= g.identityUs,
            },
          ]
        : []),
      {
        name: `${x.path}: core`,
        target: `<= ${g.coreUs} µs`,
        measured: us(cpu('core')),
        ok: cpu('core') <= g.coreUs,
      },
    );
    // Each round's gateway turn against the core's turn of the same round.
    if (core && x.path === 'gateway REST') {
      const ratios = x.turns.map((t, i) => t.rps / core.turns[i]!.rps);
      const ratio = spread(ratios).median;
      checks.push({
        name: 'gateway REST / core internal API throughput (log.recent)',
        target: `>= ${g.gatewayOverCore}`,
        measured: `${range(ratios, 2)}`,
        ok: ratio >= g.gatewayOverCore,
      });
    }
    const peer = x.path.includes('legacy')
      ? find('bare SDK MCP legacy (stateless)')
      : x.path.includes('modern')
        ? find('bare SDK MCP modern')
        : undefined;
    if (peer) {
      const ratios = x.turns.map((t, i) => t.rps / peer.turns[i]!.rps);
      checks.push({
        name: `${x.path} / ${peer.path} throughput`,
        target: `>= ${g.gatewayOverBare}`,
        measured: range(ratios, 2),
        ok: spread(ratios).median >= g.gatewayOverBare,
      });
    }
  }
  return checkTable(checks);
}

export function sizesTables(r: SizesReport): string {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  const rows = [r.ours, ...r.peers, ...r.extra, r.scriptTag];
  const sizes = textTable(
    ['bundle', 'min bytes', 'gzip bytes', 'min KiB', 'gzip KiB', 'what'],
    rows.map((s) => [
      s.name,
      String(s.minBytes),
      String(s.gzipBytes),
      kb(s.minBytes),
      kb(s.gzipBytes),
      s.what,
    ]),
  );
  const verdict = (ratio: number) => (ratio <= SIZE_GOAL_RATIO ? 'ok' : 'MISSED');
  const smaller = r.peers.find((p) => p.name === r.smallerPeer);
  const scriptTagRatio = smaller ? r.scriptTag.gzipBytes / smaller.gzipBytes : Number.NaN;
  return [
    '',
    'Web SDK sizes (esbuild: bundle, minify, es2020, browser, tree-shaken, production; gzip level 9)',
    sizes,
    `ours / ${r.smallerPeer} (gzip): ${r.ratio.toFixed(3)}, goal <= ${SIZE_GOAL_RATIO}: ${verdict(r.ratio)}`,
    `svc-web.min.js / ${r.smallerPeer} (gzip): ${scriptTagRatio.toFixed(3)}, goal <= ${SIZE_GOAL_RATIO}: ${verdict(scriptTagRatio)}`,
    `largest inputs of ours: ${r.ours.largest.map((l) => `${l.input} ${l.bytes}`).join(', ')}`,
  ].join('\n');
}
