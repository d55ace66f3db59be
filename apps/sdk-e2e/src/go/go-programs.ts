import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { findGo } from '@svc/sdk-go/find-go';
import { runToEnd, waitOnProgress } from '@svc/standalone/testing';

// The Go SDK's programs, built once per test file with the machine's Go (the SDK's floor, 1.19):
// the example checkout service, built as an app outside the repository builds it (a module of its
// own that requires the SDK through the README's `go mod edit` line, no network), and the sampling
// decider.

/** The Go module's directory (sdks/go), found through its workspace package. */
const MODULE = join(dirname(createRequire(import.meta.url).resolve('@svc/sdk-go/find-go')), '..');

export interface GoPrograms {
  checkout: string;
  sampleDecide: string;
  remove(): void;
}

/** Builds the programs; undefined where no Go is installed (outside CI: the tests skip). */
export async function buildGoPrograms(): Promise<GoPrograms | undefined> {
  const toolchain = findGo();
  if (!toolchain) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'svc-go-'));
  const checkout = join(dir, 'checkout');
  const sampleDecide = join(dir, 'sampledecide');
  const app = join(dir, 'shop');
  mkdirSync(app);
  copyFileSync(join(MODULE, 'examples', 'checkout', 'main.go'), join(app, 'main.go'));
  // GOPROXY=off: everything comes from the machine (the SDK uses the standard library only).
  const env = { ...process.env, GOPROXY: 'off', GOFLAGS: '' };
  const inApp = { cwd: app, env };
  await runToEnd(toolchain.go, ['mod', 'init', 'example.com/shop'], inApp);
  await runToEnd(
    toolchain.go,
    ['mod', 'edit', '-require=svc.dev/sdk-go@v0.1.0', `-replace=svc.dev/sdk-go=${MODULE}`],
    inApp,
  );
  await runToEnd(toolchain.go, ['build', '-o', checkout, '.'], inApp);
  await runToEnd(toolchain.go, ['build', '-o', sampleDecide, './internal/sampledecide'], {
    cwd: MODULE,
    env,
  });
  return { checkout, sampleDecide, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The Go program's decision ("1" kept) for each [trace id, rate]. */
export function goDecisions(sampleDecide: string, pairs: [string, number][]): boolean[] {
  const run = spawnSync(sampleDecide, [], {
    input: pairs.map(([id, rate]) => `${id} ${rate}\n`).join(''),
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  if (run.status !== 0) throw new Error(`sampledecide failed: ${run.stderr}`);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => line === '1');
}

export interface GoService {
  url: string;
  /** SIGTERM, then the exit: the service flushes what it traced first. */
  stop(): Promise<{ code: number | null; stderr: string }>;
}

/** Starts the checkout service and waits for its "listening on" line. */
export async function startCheckout(binary: string, env: Record<string, string>): Promise<GoService> {
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(binary, [], {
    env: { PATH: process.env.PATH, ADDR: '127.0.0.1:0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await waitOnProgress({
    what: 'the Go checkout service to listen',
    check: () => /listening on (http:\/\/\S+)/.exec(stdout)?.[1],
    pid: child.pid,
    output: () => stdout + stderr,
    gone: () => (child.exitCode !== null ? `it exited with ${child.exitCode}` : undefined),
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      return { code, stderr };
    },
  };
}
