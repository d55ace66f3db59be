import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StackUrls } from '../stack';
import { entryArgs } from './entries';
import { freePorts } from './free-ports';
import { seedEmptyClusters } from './pglite-template';
import { waitOnProgress } from './wait-on-progress';

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
  /** The ready file the stack wrote once its banner was out. */
  readyFile: string;
  internalSecret: string;
  env: Record<string, string>;
  /** stdout and stderr, interleaved as they arrived. */
  output(): string;
  /** The same, chunk by chunk with the stream each came on, in the order they arrived. */
  transcript(): ReadonlyArray<{ stream: 'stdout' | 'stderr'; text: string }>;
  stop(): Promise<number | null>;
  /** Stops and deletes the data dir. */
  dispose(): Promise<void>;
}

export interface SpawnOptions {
  /** An existing data dir (a restart); default a new temp dir. */
  dataDir?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /**
   * A new data dir starts with nothing at all in it, so the first start creates its databases
   * too (initdb). By default it holds an empty database cluster for identity and recall, copied
   * from one made once per run (pglite-template.ts): the rest of the first start is the same.
   */
  emptyDataDir?: boolean;
}

/**
 * Runs `apps/standalone` as its own process (as `pnpm start` does) on free loopback ports and a
 * temp data dir, and waits for its ready file for as long as the start progresses (waitOnProgress:
 * a busy machine slows a start down, it does not fail it), up to `timeoutMs` overall. `env` adds to
 * or overrides the test defaults; a variable given as undefined is left out (the stack's default).
 * Each test file gets its own stack and chDB.
 */
export async function spawnStack(options: SpawnOptions = {}): Promise<SpawnedStack> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(options);
    } catch (err) {
      // A free port is free when it is picked, not when the stack binds it: another test's stack
      // (two files run at a time, other packages beside them) or an outgoing connection may take it
      // in between. That race, and only it, is tried again on new ports and a new data dir.
      if (attempt >= PORT_RACE_ATTEMPTS || options.dataDir || !isPortTaken(err)) throw err;
    }
  }
}

/** Starts tried when a picked port was taken before the stack bound it. */
const PORT_RACE_ATTEMPTS = 3;

const isPortTaken = (err: unknown) =>
  err instanceof Error && /is already in use\. Is another stack/.test(err.message);

async function spawnOnce(options: SpawnOptions): Promise<SpawnedStack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  if (!options.dataDir && !options.emptyDataDir) await seedEmptyClusters(dataDir);
  const readyFile = join(dataDir, `ready-${Date.now()}.json`);
  const [gateway, core, identity, metrics, recall, copilot, consolePort] = await freePorts(7);
  const given: Record<string, string | undefined> = {
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
  const env = Object.fromEntries(
    Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  let out = '';
  const transcript: { stream: 'stdout' | 'stderr'; text: string }[] = [];
  const child: ChildProcess = spawn(process.execPath, entryArgs('stack'), {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]?.setEncoding('utf8');
    child[stream]?.on('data', (text: string) => {
      out += text;
      transcript.push({ stream, text });
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  let ready: ReadyInfo;
  try {
    ready = await waitOnProgress({
      what: 'standalone not ready',
      pid: child.pid,
      check: () => readReadyFile(readyFile),
      output: () => out,
      gone: () =>
        child.exitCode === null && child.signalCode === null
          ? undefined
          : `exited with ${child.exitCode ?? child.signalCode}`,
      ...(options.timeoutMs ? { ceilingMs: options.timeoutMs } : {}),
    });
  } catch (err) {
    child.kill('SIGKILL');
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const internalSecret = readFileSync(join(dataDir, 'internal-secret'), 'utf8').trim();
  const stop = async () => {
    const running = () => child.exitCode === null && child.signalCode === null;
    if (running()) child.kill('SIGINT');
    // A shutdown on a loaded machine is slow, not stuck: killed only once it stops progressing (or
    // at the ceiling), where a fixed 20 s cut a clean exit short and turned its code 0 into SIGKILL.
    await waitOnProgress({
      what: 'standalone stopping',
      pid: child.pid,
      check: () => (running() ? undefined : true),
      output: () => out,
    }).catch(() => child.kill('SIGKILL'));
    return exited;
  };
  return {
    ready,
    pid: child.pid,
    dataDir,
    readyFile,
    internalSecret,
    env,
    output: () => out,
    transcript: () => transcript,
    stop,
    async dispose() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The ready file once written whole (a slow machine can show it created and still empty). */
function readReadyFile(path: string): ReadyInfo | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ReadyInfo;
  } catch {
    return undefined;
  }
}
