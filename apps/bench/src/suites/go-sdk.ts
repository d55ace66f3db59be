import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findGo } from '@svc/sdk-go/find-go';
import { textTable } from '../report';
import { median } from '../stats';

// What the Go SDK adds to a request: `go test -bench` of the middleware and the round tripper over
// real loopback HTTP (httptest), each beside the same request without the SDK (sdks/go/bench_test.go).
// The test binary is built once; bare and traced run in alternate turns so that drift in the
// machine's speed hits both alike, and the figures are the medians of the turns. Goals: at most
// 10 allocations and no more time added than the bare request takes.

export const GO_ADDED_ALLOCS_GOAL = 10;
const ROUNDS = Number(process.env.BENCH_GO_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_GO_REQUESTS ?? 3000);

interface Figures {
  nsPerOp: number;
  allocsPerOp: number;
}

export interface GoSdkRow {
  name: string;
  bare: Figures;
  traced: Figures;
  addedNs: number;
  addedAllocs: number;
}

function runOne(binary: string, benchmark: string): Figures {
  const out = execFileSync(
    binary,
    ['-test.run', '^$', '-test.bench', `^${benchmark}$`, '-test.benchmem', '-test.benchtime', `${REQUESTS}x`],
    { encoding: 'utf8' },
  );
  const line = /\s(\d+(?:\.\d+)?) ns\/op.*?\s(\d+) allocs\/op/.exec(out);
  if (!line) throw new Error(`no figures from ${benchmark}:\n${out}`);
  return { nsPerOp: Number(line[1]), allocsPerOp: Number(line[2]) };
}

/** The rows, or undefined where no Go is installed. */
export function benchGoSdk(): GoSdkRow[] | undefined {
  const toolchain = findGo();
  if (!toolchain) return undefined;
  const module = join(dirname(createRequire(import.meta.url).resolve('@svc/sdk-go/find-go')), '..');
  const dir = mkdtempSync(join(tmpdir(), 'svc-go-bench-'));
  try {
    const binary = join(dir, 'sdk-go.test');
    execFileSync(toolchain.go, ['test', '-c', '-o', binary, '.'], { cwd: module, stdio: 'inherit' });
    return (['Server', 'Client'] as const).map((kind) => {
      const turns: { bare: Figures; traced: Figures }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which goes first, so neither always runs on a warmer machine.
        const first = round % 2 ? 'Traced' : 'Bare';
        const a = runOne(binary, `Benchmark${kind}${first}`);
        const b = runOne(binary, `Benchmark${kind}${first === 'Bare' ? 'Traced' : 'Bare'}`);
        turns.push(first === 'Bare' ? { bare: a, traced: b } : { bare: b, traced: a });
      }
      const figures = (pick: (t: { bare: Figures; traced: Figures }) => Figures): Figures => ({
        nsPerOp: median(turns.map((t) => pick(t).nsPerOp)),
        allocsPerOp: median(turns.map((t) => pick(t).allocsPerOp)),
      });
      return {
        name: kind === 'Server' ? 'middleware (server span)' : 'round tripper (client span)',
        bare: figures((t) => t.bare),
        traced: figures((t) => t.traced),
        addedNs: median(turns.map((t) => t.traced.nsPerOp - t.bare.nsPerOp)),
        addedAllocs: median(turns.map((t) => t.traced.allocsPerOp - t.bare.allocsPerOp)),
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function goSdkTable(rows: GoSdkRow[] | undefined): string {
  if (!rows) return '\nGo SDK: skipped (no Go 1.19+; apt-get install golang-go)';
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  return [
    '',
    `Go SDK: what it adds to a loopback request (go test -bench, ${REQUESTS} requests a turn, median of ${ROUNDS} alternate turns)`,
    textTable(
      [
        'what',
        'bare ns/op',
        'traced ns/op',
        'added ns',
        'added / bare',
        'bare allocs',
        'traced allocs',
        'added allocs',
        'verdict',
      ],
      rows.map((r) => [
        r.name,
        r.bare.nsPerOp.toFixed(0),
        r.traced.nsPerOp.toFixed(0),
        r.addedNs.toFixed(0),
        (r.addedNs / r.bare.nsPerOp).toFixed(2),
        String(r.bare.allocsPerOp),
        String(r.traced.allocsPerOp),
        String(r.addedAllocs),
        verdict(r.addedAllocs <= GO_ADDED_ALLOCS_GOAL && r.addedNs <= r.bare.nsPerOp),
      ]),
    ),
    `goals: added allocs <= ${GO_ADDED_ALLOCS_GOAL}, added time <= the bare request's`,
  ].join('\n');
}
