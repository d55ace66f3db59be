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
