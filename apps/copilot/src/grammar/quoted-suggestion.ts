import { parseClaim } from './grammar';

// The most common miss: an operation or metric name with spaces, unquoted
// ("p99 of operation GET /api/v1/feed is below 300 ms"). The grammar reads a bare name as one word,
// so such a claim matches no form. Rather than guess where the name ends, the answer suggests the
// quoted query that does read, when exactly one place to end the name makes one.
const NAMED = /\b(?:operation|metric)\s+/gi;

/** The query with its operation or metric name quoted, when that and only that reads; else null. */
export function quotedSuggestion(query: string): string | null {
  const text = query.trim();
  const readings = new Set<string>();
  for (const named of text.matchAll(NAMED)) {
    const start = named.index + named[0].length;
    if (text[start] === '"' || text[start] === "'") continue;
    for (const is of text.slice(start).matchAll(/\s+is\s+/gi)) {
      const name = text.slice(start, start + is.index);
      if (!/\s/.test(name) || name.includes('"')) continue;
      const candidate = `${text.slice(0, start)}"${name}"${text.slice(start + is.index)}`;
      if (parseClaim(candidate)) readings.add(candidate);
    }
  }
  return readings.size === 1 ? [...readings][0]! : null;
}
