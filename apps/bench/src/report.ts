import type { Summary } from './stats';
import { FAIRNESS_TARGET_RATIO, type FairnessReport } from './suites/fairness';
import type { Check, GatewayReport } from './suites/gateway';
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
