import type { Command, OptionSpec } from './commands';
import { COMMANDS } from './commands';
import { COMMON_OPTIONS } from './common-options';

// --help texts, written from the command table: what --help says is what parseArgs accepts.

export const EXIT_CODES = [
  '0  every file was uploaded (or, with --dry-run, would be)',
  '1  some files failed to upload (the line of each says why)',
  '2  usage error: bad arguments, a missing or malformed DSN, no files found, a file that is not what the command uploads',
  '3  the ingest key was refused (401/403): nothing more is sent',
];

function optionLines(options: Record<string, OptionSpec & { short?: string }>): string[] {
  const rows = Object.entries(options).map(([name, spec]) => [
    `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`,
    spec.description,
  ]);
  const width = Math.max(...rows.map(([left]) => left!.length));
  return rows.map(([left, right]) => `  ${left!.padEnd(width)}  ${right}`);
}

export function mainHelp(version: string): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `svc-cli ${version}: upload an app build's debug files for crash symbolication.`,
    '',
    'Usage: svc-cli [upload] <command> [options] <path>...',
    '       svc-cli <command> --help',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options of every command:',
    ...optionLines(COMMON_OPTIONS),
    '',
    'The same bytes found twice are uploaded once. Uploading the same kind, platform, release and',
    'name again replaces the earlier file.',
    '',
    'Exit codes:',
    ...EXIT_CODES.map((l) => `  ${l}`),
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const own = Object.keys(command.options).length > 0;
  return [
    `Usage: svc-cli upload ${command.name} ${command.args} [options]`,
    '',
    command.description,
    '',
    ...(own ? ['Options:', ...optionLines(command.options), ''] : []),
    'Options of every command:',
    ...optionLines(COMMON_OPTIONS),
    '',
    'Exit codes:',
    ...EXIT_CODES.map((l) => `  ${l}`),
  ].join('\n');
}
