import { execFile, execFileSync, fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ExporterStats } from '@svc/sdk-node';
import type { FloodSpec } from '../flood-process';
import type { LoadResult } from '../load';
import type { TracedServers } from '../traced-servers-process';

// What the SDK's server middleware costs a request. One express handler, plain and
// instrumented (a span per request, exported), in one process; 16 connections from a load process
// of its own, the two measured in turns so that drift in the machine's speed hits both alike. The
// spans go to a sink that only reads them: what the core does with them is the ingest suite's.
// The overhead is the server's CPU time per request, traced against plain: on two cores shared
// with the load process, requests per second mostly say how much CPU the load process got.
// Where taskset exists (Linux), the servers' process runs on CPU 0 and the load on CPU 1: the
// scheduler then cannot move them onto one core at times. Unpinned, turns of one variant differed
// by 5-10%; pinned and warmed, by a few percent on a calm machine (measured).

export const MIDDLEWARE_TARGET_OVERHEAD = 0.05;
const CONNECTIONS = 16;
const ROUNDS = 5;
// Each variant once before the measured turns, unmeasured: the first seconds of a server are V8
// compiling and re-optimising express and the middleware, and a turn that included them measured
// the JIT (single runs differed by 6 to 19% where warmed ones agree within a few).
const WARMUP_MS = 2000;

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The CPUs to pin the servers and the load to, when that is possible here. */
function pinning(): { server: string; load: string } | undefined {
  if (process.platform !== 'linux' || availableParallelism() < 2) return undefined;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return { server: '0', load: '1' };
  } catch {
    return undefined;
  }
}

function load(url: string, durationMs: number, cpus: string | undefined): Promise<LoadResult> {
  const spec: FloodSpec = {
    url: `${url}/v1/orders/12345`,
    connections: CONNECTIONS,
    durationMs,
    headers: { 'content-type': 'application/json' },
    body: '{}',
    expected: [200],
  };
  return new Promise((resolve, reject) => {
    const node = [process.execPath, '--import', 'tsx', here('../flood-process.ts'), JSON.stringify(spec)];
    const [command, ...args] = cpus ? ['taskset', '-c', cpus, ...node] : node;
    execFile(
      command!,
      args,
      { maxBuffer: 16 * 1024 * 1024, timeout: durationMs + 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`load process failed: ${err.message} ${stderr.slice(0, 500)}`));
        else resolve(JSON.parse(stdout) as LoadResult);
      },
    );
  });
}

/** Accepts every export with 200 after reading it: the exporter's cost, not the ingest's. */
async function sink(): Promise<{ url: string; spans: () => number; close: () => Promise<void> }> {
  let spans = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      spans += (JSON.parse(Buffer.concat(chunks).toString('utf8')).spans ?? []).length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"accepted":{}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans: () => spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchMiddleware(durationMs: number): Promise<string[]> {
  const spanSink = await sink();
  const child = fork(here('../traced-servers-process.ts'), [], { execArgv: ['--import', 'tsx'] });
  try {
    const servers = await new Promise<TracedServers>((resolve) => {
      child.once('message', (m) => resolve(m as TracedServers));
      child.send({ dsn: `http://key_bench:secret@${new URL(spanSink.url).host}/bench` });
    });
    const pin = pinning();
    // -a: every thread of it (the collector's, libuv's), not only the main one.
    if (pin) execFileSync('taskset', ['-a', '-p', '-c', pin.server, String(child.pid)], { stdio: 'ignore' });
    const ask = <T>(message: string) =>
      new Promise<T>((resolve) => {
        child.once('message', (m) => resolve(m as T));
        child.send(message);
      });
    const runs: Record<'plain' | 'traced', LoadResult[]> = { plain: [], traced: [] };
    const cpuPerRequest: Record<'plain' | 'traced', number[]> = { plain: [], traced: [] };
    for (const kind of ['plain', 'traced'] as const) await load(servers[kind], WARMUP_MS, pin?.load);
    for (let round = 0; round < ROUNDS; round++)
      for (const kind of ['plain', 'traced'] as const) {
        const before = await ask<number>('cpu');
        const run = await load(servers[kind], durationMs, pin?.load);
        const used = (await ask<number>('cpu')) - before;
        runs[kind].push(run);
        cpuPerRequest[kind].push(used / (run.requestsPerSecond * (durationMs / 1000)));
      }
    const stats = await ask<ExporterStats>('stats');
    const rps = (kind: 'plain' | 'traced') => median(runs[kind].map((r) => r.requestsPerSecond));
    const p50 = (kind: 'plain' | 'traced') => median(runs[kind].map((r) => r.latency.p50));
    const cpu = (kind: 'plain' | 'traced') => median(cpuPerRequest[kind]);
    // Each turn against the plain turn just before it (the machine in the same state): the median
    // of those, and their range, which says how far one run can be trusted.
    const perTurn = cpuPerRequest.traced.map((traced, i) => traced / cpuPerRequest.plain[i]! - 1);
    const overhead = median(perTurn);
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const errors = [...runs.plain, ...runs.traced].reduce((n, r) => n + r.errors, 0);
    const verdict = overhead <= MIDDLEWARE_TARGET_OVERHEAD ? 'ok' : 'MISSED';
    return [
      `middleware: express + expressTracing vs plain, ${CONNECTIONS} connections, ${ROUNDS} turns of ${durationMs} ms each` +
        `${pin ? ` (servers on CPU ${pin.server}, load on CPU ${pin.load})` : ''}: ` +
        `server CPU ${cpu('traced').toFixed(0)} vs ${cpu('plain').toFixed(0)} us a request, overhead ${pct(overhead)} (turns ${pct(Math.min(...perTurn))} to ${pct(Math.max(...perTurn))}) ` +
        `(${Math.round(rps('traced')).toLocaleString()} vs ${Math.round(rps('plain')).toLocaleString()} req/s, ` +
        `p50 ${p50('traced').toFixed(2)} vs ${p50('plain').toFixed(2)} ms) ` +
        `(target <= ${MIDDLEWARE_TARGET_OVERHEAD * 100}%: ${verdict}); ${stats.sent.toLocaleString()} spans exported ` +
        `(${spanSink.spans().toLocaleString()} received), ${stats.dropped} dropped, ${errors} failed requests`,
    ];
  } finally {
    child.kill();
    await spanSink.close();
  }
}
