import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// The three services as separate processes, started by their own entry points (as deployed), so
// the gateway's latency and memory are measured apart from the core's.

const APPS = resolve(import.meta.dirname, '../..');

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as import('node:net').AddressInfo;
      s.close(() => res(port));
    });
  });
}

export interface Service {
  name: string;
  url: string;
  pid: number;
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
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function startService(app: string, env: Record<string, string>, port: number): Promise<Service> {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', join(APPS, app, 'src/main.ts')], {
    cwd: join(APPS, app),
    env: { PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, child, () => out);
  return {
    name: app,
    url,
    pid: child.pid!,
    peakRssMb() {
      // tsx runs the app in a child node process; measure the biggest process of the tree.
      const pids = [child.pid!, ...childPids(child.pid!)];
      return Math.max(...pids.map(vmHwmMb));
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
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

function vmHwmMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export interface Deployment {
  secret: string;
  identity: Service;
  core: Service;
  gateway: Service;
  close(): Promise<void>;
}

export async function startDeployment(): Promise<Deployment> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-deploy-'));
  const secret = 'bench-deploy-secret-0123456789';
  const [idPort, corePort, gwPort, metricsPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const common = {
    SVC_INTERNAL_SECRET: secret,
    SVC_DATA_DIR: dir,
    SVC_IDENTITY_INTERNAL_URL: `http://127.0.0.1:${idPort}`,
    SVC_OBSERVABILITY_ENDPOINT: `http://127.0.0.1:${corePort}`,
  };
  const identity = await startService('identity', { ...common, SVC_IDENTITY_HOST: '127.0.0.1' }, idPort);
  const core = await startService('observability-core', { ...common, SVC_CORE_HOST: '127.0.0.1' }, corePort);
  const gateway = await startService(
    'http-gateway',
    {
      ...common,
      SVC_MCP_HTTP_PORT: String(gwPort),
      SVC_METRICS_PORT: String(metricsPort),
      SVC_RATE_LIMIT_PER_MINUTE: '100000000',
    },
    gwPort,
  );
  return {
    secret,
    identity,
    core,
    gateway,
    async close() {
      await gateway.stop();
      await core.stop();
      await identity.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
