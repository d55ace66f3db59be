import { parseArgs } from 'node:util';
import { COMMANDS, type Command } from './commands';
import { COMMON_OPTIONS, DEFAULT_CONCURRENCY, DEFAULT_RETRIES } from './common-options';
import type { DebugFile } from './debug-file';
import { parseDsn, type UploadTarget } from './dsn';
import { commandHelp, mainHelp } from './help';
import { type FileLine, jsonLine, type Summary, summaryText, textLine } from './report';
import { type UploadResult, uploadAll } from './uploader';
import { UsageError } from './usage-error';
import { cliVersion } from './version';

// svc-cli [upload] <command> [options] <path>...: find the files, check them all before anything
// is sent (a usage error sends nothing), upload each distinct content once, print a line per file.

export const EXIT = { ok: 0, failed: 1, usage: 2, refused: 3 } as const;

export interface CliIo {
  env: Record<string, string | undefined>;
  /** A line of the command's output (stdout). */
  out(line: string): void;
  /** A line for the person reading the log (stderr). */
  err(line: string): void;
  /** First retry backoff in ms (tests make it short). */
  backoffMs?: number;
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const version = cliVersion();
  let args = [...argv];
  if (args[0] === 'upload') args = args.slice(1);
  const first = args[0];
  if (first === undefined) {
    io.err(mainHelp(version));
    return EXIT.usage;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const named = args[1] === undefined ? undefined : COMMANDS.find((c) => c.name === args[1]);
    io.out(named ? commandHelp(named) : mainHelp(version));
    return EXIT.ok;
  }
  if (first === '--version' || first === '-v') {
    io.out(version);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) {
    io.err(
      `Unknown command "${first}". Commands: ${COMMANDS.map((c) => c.name).join(', ')} (svc-cli --help).`,
    );
    return EXIT.usage;
  }
  try {
    return await runCommand(command, args.slice(1), io, version);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`svc-cli ${command.name}: ${err.message}`);
    io.err(`See svc-cli ${command.name} --help.`);
    return EXIT.usage;
  }
}

interface Settings {
  release: string | undefined;
  dryRun: boolean;
  json: boolean;
  concurrency: number;
  retries: number;
  target: UploadTarget | null;
}

async function runCommand(command: Command, argv: string[], io: CliIo, version: string): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...COMMON_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) {
    io.out(commandHelp(command));
    return EXIT.ok;
  }
  const settings = readSettings(values, io.env);
  if (command.name !== 'react-native' && parsed.positionals.length === 0)
    throw new UsageError('Name at least one file or directory.');

  const files = await command.collect({ paths: parsed.positionals, values });
  if (files.length === 0)
    throw new UsageError(
      `No files to upload found in ${parsed.positionals.join(', ')} (${command.summary}).`,
    );
  checkNames(files);
  const { unique, duplicates } = dedupe(files);

  const lines: FileLine[] = [];
  const print = (line: FileLine) => {
    lines.push(line);
    io.out(settings.json ? jsonLine(line) : textLine(line));
  };
  for (const [file, original] of duplicates)
    print({ status: 'duplicate', file, release: settings.release, duplicateOf: original.source });

  if (settings.dryRun) {
    for (const file of unique) print({ status: 'would_upload', file, release: settings.release });
  } else {
    await uploadAll(unique, {
      target: settings.target!,
      release: settings.release,
      concurrency: settings.concurrency,
      retries: settings.retries,
      userAgent: `svc-cli/${version} node/${process.versions.node}`,
      ...(io.backoffMs !== undefined ? { backoffMs: io.backoffMs } : {}),
      onResult: (result) => print(lineOf(result, settings.release)),
    });
  }
  const summary = summarize(lines);
  if (settings.json)
    io.out(JSON.stringify({ type: 'summary', ...summary, release: settings.release ?? null }));
  else
    io.err(
      summaryText(summary, settings.dryRun) + (settings.release ? ` (release ${settings.release})` : ''),
    );
  return summary.exit_code;
}

function readSettings(values: Record<string, string | boolean | undefined>, env: CliIo['env']): Settings {
  const release = values.release as string | undefined;
  if (release !== undefined && release.trim() === '') throw new UsageError('--release must not be empty.');
  const dryRun = values['dry-run'] === true;
  const dsn = (values.dsn as string | undefined) ?? env.SVC_DSN;
  let target: UploadTarget | null = null;
  if (dsn !== undefined && dsn !== '') {
    const parsed = parseDsn(dsn);
    if ('error' in parsed)
      throw new UsageError(`${values.dsn !== undefined ? '--dsn' : 'SVC_DSN'}: ${parsed.error}`);
    target = parsed;
  } else if (!dryRun) {
    throw new UsageError("No DSN: give --dsn or set SVC_DSN (the project ingest key's DSN).");
  }
  return {
    release,
    dryRun,
    json: values.json === true,
    concurrency: intOption(values, 'concurrency', 1, 16, DEFAULT_CONCURRENCY),
    retries: intOption(values, 'retries', 0, 10, DEFAULT_RETRIES),
    target,
  };
}

function intOption(
  values: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
  fallback: number,
) {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(String(raw)) || n < min || n > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not "${raw}".`);
  return n;
}

/** Two different files under one name would replace each other at the core: refuse the run. */
function checkNames(files: readonly DebugFile[]): void {
  const byName = new Map<string, DebugFile>();
  for (const file of files) {
    const key = `${file.kind}\0${file.platform}\0${file.name}`;
    const seen = byName.get(key);
    if (seen && seen.sha256 !== file.sha256)
      throw new UsageError(
        `${seen.source} and ${file.source} would both be uploaded as ${file.kind}/${file.platform} "${file.name}" ` +
          '(the second would replace the first); upload them in separate runs or rename one.',
      );
    byName.set(key, file);
  }
}

/** The first file of each content (kind, platform, bytes) is uploaded; the others are duplicates. */
function dedupe(files: readonly DebugFile[]) {
  const first = new Map<string, DebugFile>();
  const unique: DebugFile[] = [];
  const duplicates: [DebugFile, DebugFile][] = [];
  for (const file of files) {
    const key = `${file.kind}\0${file.platform}\0${file.sha256}`;
    const original = first.get(key);
    if (original) duplicates.push([file, original]);
    else {
      first.set(key, file);
      unique.push(file);
    }
  }
  return { unique, duplicates };
}

function lineOf(result: UploadResult, release: string | undefined): FileLine {
  const line: FileLine = { status: result.status, file: result.file, release, attempts: result.attempts };
  if (result.status === 'uploaded') line.fileId = result.fileId;
  if (result.status === 'failed' || result.status === 'unauthorized') line.httpStatus = result.httpStatus;
  if (result.status !== 'uploaded') line.message = result.message;
  return line;
}

function summarize(lines: readonly FileLine[]): Summary {
  const counts: Summary = {
    uploaded: 0,
    duplicate: 0,
    failed: 0,
    unauthorized: 0,
    not_sent: 0,
    would_upload: 0,
    exit_code: EXIT.ok,
  };
  for (const line of lines) counts[line.status]++;
  counts.exit_code =
    counts.unauthorized > 0 ? EXIT.refused : counts.failed + counts.not_sent > 0 ? EXIT.failed : EXIT.ok;
  return counts;
}
