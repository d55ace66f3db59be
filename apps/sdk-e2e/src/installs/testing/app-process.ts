import { type ChildProcess, spawn } from 'node:child_process';
import { waitOnProgress } from '@svc/standalone/testing';
import { outsideEnv } from './run-command';

// A long-running program of a throwaway app (a server), run with plain `node` from the app's
// folder; it says it is ready by printing a line the caller recognises (its URL).

export interface AppProcess {
  /** What the ready line's pattern captured (its first group). */
  ready: string;
  /** stdout and stderr so far, for failure messages. */
  output(): string;
  /** SIGTERM, then resolves once it exited (the app flushes what it queued on SIGTERM). */
  stop(): Promise<void>;
}

export async function startAppProcess(
  dir: string,
  args: string[],
  options: { readyLine: RegExp; env?: NodeJS.ProcessEnv; what: string },
): Promise<AppProcess> {
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: dir,
    env: outsideEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
  let exit: string | undefined;
  const exited = new Promise<void>((done) =>
    child.once('exit', (code, signal) => {
      exit = `exited (${signal ?? code})`;
      done();
    }),
  );
  const ready = await waitOnProgress({
    what: options.what,
    pid: child.pid,
    check: () => options.readyLine.exec(output)?.[1],
    output: () => output,
    gone: () => exit,
  }).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return {
    ready,
    output: () => output,
    async stop() {
      if (exit === undefined) child.kill('SIGTERM');
      await exited;
    },
  };
}
