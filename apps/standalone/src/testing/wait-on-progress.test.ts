import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, processTreeCpuMs, WaitError, waitOnProgress } from './wait-on-progress';

// Real processes: one that works (burns CPU) past the stall window, one that sleeps, one that
// exits, one that works for ever. The windows are short so the test is quick, and wide enough
// for a process given a tenth of a core.

const STALL_MS = 3000;
const CPU_STEP_MS = 100;

let dir: string;
const children: ChildProcess[] = [];

function run(command: string, args: string[]): ChildProcess & { pid: number } {
  const child = spawn(command, args, { stdio: 'ignore' });
  children.push(child);
  return child as ChildProcess & { pid: number };
}

/** A node script that burns `cpuMs` of its own CPU time, then creates `file` and sleeps. */
const burnThenTouch = (cpuMs: number, file: string) =>
  `const t0 = process.cpuUsage(); while ((process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1000 < ${cpuMs}) {}
   require('node:fs').writeFileSync(${JSON.stringify(file)}, 'done'); setTimeout(() => {}, 600000);`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wait-on-progress-'));
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('waitOnProgress', () => {
  it('outlasts the stall window while a grandchild works, and returns what check found', async () => {
    const file = join(dir, 'ready');
    // Through a shell that forks (`; true`), so the work is a grandchild of the pid watched.
    const shell = run('sh', [
      '-c',
      '"$0" -e "$1"; true',
      process.execPath,
      burnThenTouch(2 * STALL_MS, file),
    ]);
    const started = Date.now();
    const value = await waitOnProgress({
      what: 'busy child',
      pid: shell.pid,
      check: () => (existsSync(file) ? 'found' : undefined),
      stallMs: STALL_MS,
      cpuStepMs: CPU_STEP_MS,
    });
    expect(value).toBe('found');
    // It burned twice the stall window in CPU time: the wait lasted longer than that window.
    expect(Date.now() - started).toBeGreaterThan(STALL_MS);
    expect(processTreeCpuMs(shell.pid)).toBeGreaterThanOrEqual(2 * STALL_MS);
  });

  it('gives up on a process that sleeps, once the stall window passes', async () => {
    const sleeper = run(process.execPath, ['-e', 'setTimeout(() => {}, 600000)']);
    const started = Date.now();
    const wait = waitOnProgress({
      what: 'sleeping child',
      pid: sleeper.pid,
      check: () => undefined,
      stallMs: STALL_MS,
      cpuStepMs: CPU_STEP_MS,
      output: () => 'its output',
    });
    await expect(wait).rejects.toThrow(
      /^sleeping child: no progress for \d+ s \(no CPU used, no output\):\nits output$/,
    );
    expect(Date.now() - started).toBeGreaterThan(STALL_MS);
  });

  it('counts growing output as progress for a process using no CPU', async () => {
    const sleeper = run(process.execPath, ['-e', 'setTimeout(() => {}, 600000)']);
    let out = '';
    const writer = setInterval(() => (out += 'line\n'), 200);
    try {
      const started = Date.now();
      const value = await waitOnProgress({
        what: 'talking child',
        pid: sleeper.pid,
        check: () => (Date.now() - started > 2 * STALL_MS ? true : undefined),
        output: () => out,
        stallMs: STALL_MS,
        cpuStepMs: CPU_STEP_MS,
      });
      expect(value).toBe(true);
    } finally {
      clearInterval(writer);
    }
  });

  it('stops when the process watched is gone', async () => {
    const quitter = run(process.execPath, ['-e', 'process.exit(0)']);
    await new Promise((resolve) => quitter.once('exit', resolve));
    await expect(
      waitOnProgress({ what: 'quitter', pid: quitter.pid, check: () => undefined }),
    ).rejects.toThrow(`quitter: process ${quitter.pid} is gone`);
  });

  it('stops at once when told the process is gone', async () => {
    const quitter = run(process.execPath, ['-e', 'process.exit(3)']);
    await expect(
      waitOnProgress({
        what: 'quitter',
        pid: quitter.pid,
        check: () => undefined,
        gone: () => (quitter.exitCode === null ? undefined : `exited with ${quitter.exitCode}`),
      }),
    ).rejects.toThrow('quitter: exited with 3');
  });

  it('keeps its overall ceiling for a process that works for ever', async () => {
    const spinner = run(process.execPath, ['-e', 'for (;;) {}']);
    const wait = waitOnProgress({
      what: 'spinner',
      pid: spinner.pid,
      check: () => undefined,
      stallMs: 60_000,
      ceilingMs: 1500,
      cpuStepMs: CPU_STEP_MS,
    });
    await expect(wait).rejects.toBeInstanceOf(WaitError);
    await expect(wait).rejects.toThrow(/^spinner: not done after \d+ s, although progressing$/);
  });
});

describe('eventually', () => {
  it('resolves once the condition holds, and names what never came', async () => {
    let polls = 0;
    await eventually('third poll', () => ++polls >= 3, { pollMs: 1 });
    expect(polls).toBe(3);
    await expect(eventually('never', () => false, { ceilingMs: 200, pollMs: 10 })).rejects.toThrow(
      /^never: not done after \d+ s$/,
    );
  });
});
