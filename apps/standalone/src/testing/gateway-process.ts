import { type ChildProcess, spawn } from 'node:child_process';
import { entryArgs } from './entries';
import { freePorts } from './free-ports';
import { waitOnProgress } from './wait-on-progress';

// Test-only: the gateway as its own process (its real entry point), pointed at given backends.

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
  const child: ChildProcess = spawn(process.execPath, entryArgs('gateway'), {
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
  try {
    // Up once /healthz answers, waited for while the process progresses (waitOnProgress).
    await waitOnProgress({
      what: 'gateway not up',
      pid: child.pid,
      check: async () => {
        try {
          return (await fetch(`${url}/healthz`)).ok ? true : undefined;
        } catch {
          return undefined;
        }
      },
      output: () => out,
      gone: () => (child.exitCode === null ? undefined : `exited with ${child.exitCode}`),
      pollMs: 100,
    });
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
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
