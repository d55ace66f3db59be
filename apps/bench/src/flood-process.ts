// One load run in a process of its own (suite fairness): the flooding tenant's client must not share
// an event loop with the client whose latency is measured, or its megabyte answers would be counted
// as the stack's delay. Argument: a JSON FloodSpec; output: the LoadResult as JSON on stdout.
import { load } from './load';

export interface FloodSpec {
  url: string;
  connections: number;
  durationMs: number;
  headers: Record<string, string>;
  body: string;
  /** Statuses that count as answered (the rest are errors). */
  expected: number[];
}

const spec = JSON.parse(process.argv[2] ?? '{}') as FloodSpec;
const result = await load(spec.url, {
  connections: spec.connections,
  durationMs: spec.durationMs,
  request: () => ({ headers: spec.headers, body: spec.body }),
  expected: (status) => spec.expected.includes(status),
});
process.stdout.write(JSON.stringify(result));
