import type { AdminCall } from './admin-client';
import { CliError } from './cli-config';
import { USAGE } from './usage';

export interface ParsedArgs {
  positionals: string[];
  values: {
    org?: string;
    project?: string;
    name?: string;
    days?: string;
    'org-name'?: string;
    'project-name'?: string;
    email?: string;
    password?: string;
    /** bootstrap: also create an MCP token / an ingest key for the project (a fresh stack's first). */
    token?: boolean;
    'ingest-key'?: boolean;
    /** Repeatable: every --origin given, in order. */
    origin?: string[];
  };
}

/** One JSON object for --json, and a readable line for humans. */
export interface CommandOutput {
  json: object;
  text: string;
  /**
   * Non-zero when the answer itself is a failure (a broken audit chain): the result is still
   * printed in full on stdout, so a script gets both the verdict and the details.
   */
  exitCode?: number;
}

/** One row of the CLI's table: its words, how many positionals it takes (words included), its run. */
export interface Command {
  name: string;
  positionals: number;
  run(args: ParsedArgs, call: AdminCall): Promise<CommandOutput>;
}

/** A wrong command line (exit 2): the problem, then the whole usage text. */
export const usage = (message: string) => new CliError(`${message}\n\n${USAGE}`, 2, 'usage');

export function required(value: string | undefined, flag: string): string {
  if (!value) throw usage(`missing ${flag}`);
  return value;
}
