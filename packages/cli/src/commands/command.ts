import type { DebugFile } from '../debug-file';

/** One option of a command, as parseArgs takes it plus what --help says of it. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** The value's placeholder in --help (`<dir>`). */
  value?: string;
  description: string;
}

export interface CollectInput {
  paths: string[];
  values: Record<string, string | boolean | undefined>;
}

/** An upload command: what it finds, and the files it would upload (nothing is sent here). */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Arguments after the command name, for --help (`<path>...`). */
  args: string;
  /** What it looks for and how each upload is named, for --help. */
  description: string;
  options: Record<string, OptionSpec>;
  /** Throws UsageError when a path is missing or a file is not what the command uploads. */
  collect(input: CollectInput): Promise<DebugFile[]>;
}
