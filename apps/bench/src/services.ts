import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

// Services as separate processes, started the way they are deployed: each app's production
// bundle (`pnpm build`), so memory and latency are those of the service, not of a TypeScript
// loader. BENCH_TSX=1 runs the TypeScript sources through tsx instead.

const APPS = resolve(import.meta.dirname, '../..');
const ROOT = resolve(APPS, '..');
export const FIXTURES = resolve(import.meta.dirname, '../fixtures');

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as import('node:net').AddressInfo;
      s.close(() => res(port));
    });
  });
}

let built = false;
/** Each app's bundles, as its `pnpm build` makes them (the gateway's answer workers run their own). */
const BUNDLES: Record<string, [entry: string, outfile: string][]> = {
  identity: [['src/main.ts', 'dist/main.js']],
  'observability-core': [['src/main.ts', 'dist/main.js']],
  'http-gateway': [
    ['src/main.ts', 'dist/main.js'],
    ['src/answer-worker.ts', 'dist/answer-worker.js'],
  ],
};

/** Bundles the services once per run. */
export function buildApps(): void {
  if (built || process.env.BENCH_TSX) return;
  for (const [app, entries] of Object.entries(BUNDLES)) {
    for (const [entry, outfile] of entries) {
      execFileSync(process.execPath, [join(ROOT, 'scripts/build-app.mjs'), entry, outfile], {
        cwd: join(APPS, app),
        stdio: 'inherit',
      });
    }
  }
  built = true;
}

export interface Service {
  name: string;
  url: string;
  pid: number;
  /** Resident set size now, in MB. */
  rssMb(): number;
  /** Peak resident set size so far (VmHWM), in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

async function waitHealthy(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited: ${log()}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`service not healthy: ${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Any node script as a service answering GET /healthz on `port`. */
export async function startProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  cwd = APPS,
): Promise<Service> {
  let out = '';
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (out = (out + d).slice(-20_000)));
  if (process.env.BENCH_ECHO) child.stdout?.on('data', (d) => process.stdout.write(d));
  if (process.env.BENCH_ECHO) child.stderr?.on('data', (d) => process.stderr.write(d));
  child.stderr?.on('data', (d) => (out = (out + d).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, child, () => out);
  const tree = () => [child.pid!, ...childPids(child.pid!)];
  return {
    name,
    url,
    pid: child.pid!,
    rssMb: () => Math.max(...tree().map((p) => procStatusMb(p, 'VmRSS'))),
    peakRssMb: () => Math.max(...tree().map((p) => procStatusMb(p, 'VmHWM'))),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * V8 heap limits each service is deployed with (docs/decisions.md, "Memory"): without one, V8 lets
 * the old space grow to well over a hundred MB of garbage before a full collection, although the
 * live heap of the gateway under load is about 35 MB. The gateway's garbage is collected on the
 * thread that made it (`--single-threaded-gc`): V8's shared helper threads run at the process's
 * priority, and would otherwise collect the answer workers' garbage at the event loop's priority
 * (docs/decisions.md, "Answer workers"). The apps' own start scripts use the same.
 */
export const NODE_FLAGS: Record<string, string[]> = {
  'http-gateway': ['--max-old-space-size=128', '--single-threaded-gc'],
  identity: ['--max-old-space-size=128'],
  'observability-core': [],
};

/**
 * One of the stack's apps, as deployed (its bundle) or from source with BENCH_TSX=1. `appsDir`: the
 * apps of another checkout (its bundle, built by a run there), for a before/after in one run.
 */
export function startApp(
  app: string,
  env: Record<string, string>,
  port: number,
  appsDir: string = APPS,
): Promise<Service> {
  const entry = process.env.BENCH_TSX
    ? ['--import', 'tsx', join(appsDir, app, 'src/main.ts')]
    : [join(appsDir, app, 'dist/main.js')];
  const args = [
    ...(NODE_FLAGS[app] ?? []),
    ...((process.env.BENCH_PROF ?? '').split(',').includes(app)
      ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof']
      : []),
    ...(process.env.BENCH_TRACE_GC === app ? ['--trace-gc'] : []),
    ...entry,
  ];
  return startProcess(app, args, env, port, join(appsDir, app));
}

/** A fixture script of the bench (a trivial backend, a bare express handler). */
export function startFixture(script: string, port: number): Promise<Service> {
  return startProcess(script, [join(FIXTURES, script)], { PORT: String(port) }, port, FIXTURES);
}

function childPids(pid: number): number[] {
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    return kids.flatMap((k) => [k, ...childPids(k)]);
  } catch {
    return [];
  }
}

function procStatusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}
