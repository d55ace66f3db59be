import { type CliIo, runCli } from '../cli';

// svc-cli run in the test's own process: its output collected line by line, retries backing off
// from 20 ms instead of the shipped default, so a test of retries does not wait for real backoffs.

export interface CliRun {
  code: number;
  out: string[];
  err: string[];
}

/** runCli in this process, its output collected; retries back off from 20 ms. */
export async function cli(argv: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { env, out: (l) => out.push(l), err: (l) => err.push(l), backoffMs: 20 };
  const code = await runCli(argv, io);
  return { code, out, err };
}

/** The --json lines of a run, parsed. */
export function jsonLines(run: CliRun): Record<string, unknown>[] {
  return run.out.map((l) => JSON.parse(l) as Record<string, unknown>);
}
