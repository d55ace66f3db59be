import { delimiter, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd } from '@svc/standalone/testing';

// Commands of the install proofs (pnpm pack, npm install, node, tsc), run to their end for as long
// as they progress: a build or an install on a loaded machine is slow, not stuck.

/** The repository's root (this file is apps/sdk-e2e/src/installs/testing/run-command.ts). */
export const REPOSITORY_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../../..');

export interface CommandOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** For the error message; the command line by default. */
  what?: string;
}

export interface CommandResult {
  stdout: string;
  stderr: string;
}

/** A command that exited with another code than 0: its code and whole output. */
export { RunError as CommandError } from '@svc/standalone/testing';

/**
 * The environment of an app outside the repository: this process's, without what would let a
 * command find the repository or run as it does inside it. pnpm's scripts put the repository's
 * `node_modules/.bin` on PATH (a bare `tsc` would be ours) and export their settings as
 * `npm_config_*` (npm would read them as its own); jest sets NODE_OPTIONS for its ES modules.
 */
export function outsideEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const lower = name.toLowerCase();
    if (lower.startsWith('npm_') || lower.startsWith('pnpm_') || name === 'INIT_CWD') continue;
    if (name === 'NODE_OPTIONS' || name === 'NODE_PATH') continue;
    env[name] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && !resolve(dir).startsWith(REPOSITORY_ROOT))
    .join(delimiter);
  return { ...env, ...extra };
}

/** Runs a command to its end; a CommandError with its exit code and whole output when it fails. */
export function runCommand(command: string, args: string[], options: CommandOptions): Promise<CommandResult> {
  const what = options.what ?? [command, ...args].join(' ');
  return runToEnd(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    what: `${what} (in ${options.cwd})`,
  });
}
