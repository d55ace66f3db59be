import { HOLDINGS_INDEX } from './metrics';

// Reading gauges back from the Prometheus text a service exposes: how tests and the hostile bench
// check that everything taken was given back (every holding gauge at 0) once faults are over.

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/;

/** The series of one metric in an exposition: labels text (`{a="b"}` or '') -> value. */
function seriesOf(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (m?.[1] === name) out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

/** The sum of every series of gauge `name` (all label sets); undefined when it is not exposed. */
export function readGauge(text: string, name: string): number | undefined {
  const series = seriesOf(text, name);
  if (series.size === 0) return undefined;
  let sum = 0;
  for (const value of series.values()) sum += value;
  return sum;
}

/**
 * Every holding gauge an exposition lists (`*holdings{gauge="..."}`, one index per registry) with
 * its current total: { 'svc_answer_budget_bytes_held': 0, ... }. A gauge listed but not exposed
 * reads 0 (a labelled gauge never set has no series).
 */
export function readHoldings(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  const index = new RegExp(`^[a-zA-Z_:][a-zA-Z0-9_:]*${HOLDINGS_INDEX}\\{gauge="([^"]+)"\\}\\s`);
  for (const line of text.split('\n')) {
    const m = index.exec(line);
    if (m?.[1]) out[m[1]] = readGauge(text, m[1]) ?? 0;
  }
  return out;
}

/** The holdings not at their idle value 0 ({} when everything was given back). */
export function busyHoldings(text: string): Record<string, number> {
  return Object.fromEntries(Object.entries(readHoldings(text)).filter(([, value]) => value !== 0));
}
