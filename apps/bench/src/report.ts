import type { Summary } from './stats';
import { FAIRNESS_TARGET_RATIO, type FairnessReport } from './suites/fairness';
import type { Check, GatewayReport } from './suites/gateway';
import type { HostileReport } from './suites/hostile';
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
      `${p.flood.latency.p50.toFixed(0)} ms); CPU while B was measured: ${cpu}`
    );
  });
  return [
    '',
    `Fairness (issue 9), A: ${r.floodConnections} connections`,
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
  return ['', 'Hostile load', victim, '', attacker, ...verdicts, ...r.notes].join('\n');
}
