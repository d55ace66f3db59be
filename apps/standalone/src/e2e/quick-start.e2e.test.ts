import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRepositoryRoot } from '@svc/config';
import { freePorts } from '../testing/free-ports';
import { CONDITION_CEILING_MS, STACK_SETUP_TIMEOUT_MS, waitOnProgress } from '../testing/wait-on-progress';

// The README's first ten minutes, run as a user runs them: `pnpm start` from the repository root,
// then `pnpm svc token create` from the same place, then Ctrl-C. Ports are free ones and the data
// dir a relative SVC_DATA_DIR (so the developer's own `.data` is left alone): it must resolve to
// the same folder for both commands, under the root, never under apps/standalone (where pnpm used
// to run the stack). The default, `.data` at the root from any directory, is tested in @svc/config.

const ROOT = findRepositoryRoot(fileURLToPath(new URL('.', import.meta.url)))!;
const DATA = `.data-e2e-${process.pid}`;

let stack: ChildProcess;
let out = '';
let env: Record<string, string>;
let gatewayPort = 0;

/** Waits for `pattern` in the output while the stack's processes progress (waitOnProgress). */
function waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
  return waitOnProgress({
    what: `no ${pattern}`,
    pid: stack.pid,
    check: () => out.match(pattern) ?? undefined,
    output: () => out,
    gone: () => (stack.exitCode === null ? undefined : `pnpm start exited with ${stack.exitCode}`),
  });
}

beforeAll(async () => {
  const [gateway, core, identity, metrics] = await freePorts(4);
  gatewayPort = gateway!;
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    SVC_DATA_DIR: DATA,
    SVC_MCP_HTTP_PORT: String(gateway),
    SVC_OBSERVABILITY_ENDPOINT: `http://127.0.0.1:${core}`,
    SVC_IDENTITY_INTERNAL_URL: `http://127.0.0.1:${identity}`,
    SVC_METRICS_PORT: String(metrics),
    SVC_DEMO_SIZE: '0.2',
    SVC_LOG_LEVEL: 'warn',
  };
  // Its own process group, so Ctrl-C can be sent the way a terminal sends it: to every process.
  stack = spawn('pnpm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  stack.stdout?.on('data', (d) => (out += d));
  stack.stderr?.on('data', (d) => (out += d));
});

afterAll(() => {
  if (stack?.exitCode === null && stack.pid) process.kill(-stack.pid, 'SIGKILL');
  rmSync(join(ROOT, DATA), { recursive: true, force: true });
});

describe('the quick start, from the repository root', () => {
  let projectId = '';

  it(
    '`pnpm start` prints its data dir under the repository root, a project and a token',
    async () => {
      const [, id] = await waitFor(/Demo project\s+(\S+)/);
      projectId = id!;
      await waitFor(/Stop with Ctrl-C/);
      expect(out).toContain(`Data directory  ${join(ROOT, DATA)}`);
      expect(out).toMatch(/Token \(shown once[^)]*\): svc_pat_/);
      expect(existsSync(join(ROOT, DATA, 'internal-secret'))).toBe(true);
      expect(existsSync(join(ROOT, 'apps/standalone', DATA))).toBe(false);
      expect(out).toContain('"SVC_OBSERVABILITY_ENDPOINT"');
    },
    STACK_SETUP_TIMEOUT_MS,
  );

  it('`pnpm svc token create` right after finds the same data dir, and its token works', async () => {
    const run = spawnSync('pnpm', ['svc', 'token', 'create', '--project', projectId, '--json'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: CONDITION_CEILING_MS,
    });
    expect(run.stderr).not.toContain('no internal secret');
    expect(run.status).toBe(0);
    const { token } = JSON.parse(run.stdout) as { token: string };
    expect(token).toMatch(/^svc_pat_/);
    const res = await fetch(`http://127.0.0.1:${gatewayPort}/v1/tools/log.aggregate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ group_by: 'level' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { total: number }).total).toBeGreaterThan(0);
    expect(readFileSync(join(ROOT, DATA, 'internal-secret'), 'utf8').trim().length).toBeGreaterThan(16);
  });

  it('Ctrl-C stops it cleanly: exit 0, "Stopped", no ELIFECYCLE', async () => {
    const exited = new Promise<number | null>((resolve) => stack.once('exit', (code) => resolve(code)));
    process.kill(-stack.pid!, 'SIGINT');
    const code = await exited;
    expect(out).toMatch(/Stopped\. Data kept in /);
    expect(out).not.toContain('ELIFECYCLE');
    expect(code).toBe(0);
  });
});
