import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePorts } from './free-ports';

// Test-only: the gateway as its own process (its real entry point), pointed at given backends.

const MAIN = join(dirname(createRequire(import.meta.url).resolve('@svc/http-gateway')), 'main.ts');

export interface GatewayProcess {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

export async function spawnGateway(env: {
  SVC_INTERNAL_SECRET: string;
  SVC_IDENTITY_INTERNAL_URL: string;
  SVC_OBSERVABILITY_ENDPOINT: string;
  [name: string]: string;
}): Promise<GatewayProcess> {
  const [port, metrics] = await freePorts(2);
  let out = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      SVC_MCP_HTTP_PORT: String(port),
      SVC_METRICS_PORT: String(metrics),
      SVC_RATE_LIMIT_PER_MINUTE: '1000000',
      SVC_LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited ${child.exitCode}: ${out}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`gateway not up: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    output: () => out,
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
