import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StackUrls } from '../stack';
import { freePorts } from './free-ports';

export interface ReadyInfo {
  urls: StackUrls;
  groups: Record<string, string>;
  project_id: string;
  org_id: string;
  user_id: string;
  token: string | null;
  /** The demo person's console sign-in (first start only). */
  console_login: { email: string; password: string } | null;
  startup_ms: number;
  demo: { seed: number; size: number; days: number; now: number } | null;
}

export interface SpawnedStack {
  ready: ReadyInfo;
  /** The stack's process id (peak RSS and CPU from /proc). */
  pid: number | undefined;
  dataDir: string;
  internalSecret: string;
  env: Record<string, string>;
  output(): string;
  stop(): Promise<number | null>;
  /** Stops and deletes the data dir. */
  dispose(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

/**
 * Runs `apps/standalone` as its own process (as `pnpm start` does) on free loopback ports and a
 * temp data dir, and waits for its ready file. Each test file gets its own stack and chDB.
 */
export async function spawnStack(
  options: { dataDir?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<SpawnedStack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  const readyFile = join(dataDir, `ready-${Date.now()}.json`);
  const [gateway, core, identity, metrics, recall, copilot, consolePort] = await freePorts(7);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    SVC_DATA_DIR: dataDir,
    SVC_MCP_HTTP_PORT: String(gateway),
    SVC_OBSERVABILITY_ENDPOINT: `http://127.0.0.1:${core}`,
    SVC_IDENTITY_INTERNAL_URL: `http://127.0.0.1:${identity}`,
    SVC_RECALL_ENDPOINT: `http://127.0.0.1:${recall}`,
    SVC_COPILOT_ENDPOINT: `http://127.0.0.1:${copilot}`,
    SVC_METRICS_PORT: String(metrics),
    SVC_CONSOLE_PORT: String(consolePort),
    SVC_STANDALONE_READY_FILE: readyFile,
    // The size `pnpm start` uses: the demo's stories (release grades, leaks, the slow endpoint)
    // are checked on exactly what a user sees.
    SVC_DEMO_SIZE: '1',
    SVC_LOG_LEVEL: 'warn',
    ...options.env,
  };
  let out = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  while (!existsSync(readyFile)) {
    if (child.exitCode !== null) throw new Error(`standalone exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`standalone not ready in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const ready = JSON.parse(readFileSync(readyFile, 'utf8')) as ReadyInfo;
  const internalSecret = readFileSync(join(dataDir, 'internal-secret'), 'utf8').trim();
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return {
    ready,
    pid: child.pid,
    dataDir,
    internalSecret,
    env,
    output: () => out,
    stop,
    async dispose() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
