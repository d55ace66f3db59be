import { parseArgs } from 'node:util';
import { createAdminClient } from './admin-client';
import { CliError, resolveCliConfig } from './cli-config';
import { runCommand } from './commands';
import { USAGE } from './usage';

// `pnpm svc <command>`: the self-hosting admin CLI. stdout carries only the result (one JSON
// object with --json); everything else goes to stderr with a non-zero exit code. A result that is
// itself a failure (`audit verify` finding a broken chain) is printed on stdout in full and exits 1.
async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  try {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(argv);
    } catch (err) {
      throw new CliError(`${(err as Error).message}\n\n${USAGE}`, 2, 'usage');
    }
    if (parsed.values.help) {
      console.log(USAGE);
      return 0;
    }
    const config = await resolveCliConfig(process.env, process.cwd());
    const output = await runCommand(parsed, createAdminClient(config));
    console.log(json ? JSON.stringify(output.json) : output.text);
    return output.exitCode ?? 0;
  } catch (err) {
    const e = err instanceof CliError ? err : new CliError(String((err as Error)?.message ?? err));
    console.error(json ? JSON.stringify({ error: e.code, message: e.message }) : `error: ${e.message}`);
    return e.exitCode;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      org: { type: 'string' },
      project: { type: 'string' },
      name: { type: 'string' },
      days: { type: 'string' },
      'org-name': { type: 'string' },
      'project-name': { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      token: { type: 'boolean' },
      'ingest-key': { type: 'boolean' },
      origin: { type: 'string', multiple: true },
    },
  });
}

process.exitCode = await main(process.argv.slice(2));
