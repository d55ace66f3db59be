import { spawn } from 'node:child_process';
import { waitOnProgress } from './wait-on-progress';

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** For the error message; the command line by default. */
  what?: string;
  ceilingMs?: number;
}

export class RunError extends Error {
  override name = 'RunError';
  constructor(
    message: string,
    readonly code: number | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/**
 * Runs a command to its end for as long as it progresses (waitOnProgress: a build on a loaded
 * machine is slow, not stuck), where execFile's `timeout` would kill it at a fixed time. Resolves
 * with its output on exit 0; a RunError with the code and output otherwise.
 */
export async function runToEnd(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<{ stdout: string; stderr: string }> {
  const what = options.what ?? [command, ...args].join(' ');
  const child = spawn(command, args, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // 'exit' comes in the same turn as the process is reaped (before /proc forgets it: never read as
  // gone), 'close' once its output is all read.
  let code: number | null | undefined;
  child.once('exit', (exitCode) => {
    code = exitCode;
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let startError: Error | undefined;
  child.once('error', (err) => {
    startError = err;
  });
  try {
    await waitOnProgress({
      what,
      pid: child.pid,
      check: () => (code === undefined ? undefined : true),
      output: () => stdout + stderr,
      gone: () => (startError ? `did not start: ${startError.message}` : undefined),
      ...(options.ceilingMs ? { ceilingMs: options.ceilingMs } : {}),
    });
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  await closed;
  if (code !== 0)
    throw new RunError(`${what}: exit ${code}\n${stdout}${stderr}`, code ?? null, stdout, stderr);
  return { stdout, stderr };
}
