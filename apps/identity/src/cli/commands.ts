import type { AdminCall } from './admin-client';
import { type Command, type CommandOutput, type ParsedArgs, usage } from './command';
import { auditVerify } from './commands/audit-verify';
import { bootstrap } from './commands/bootstrap';
import { capabilitySet } from './commands/capability-set';
import { ingestKeyCreate, ingestKeyOrigins, ingestKeyRevoke } from './commands/ingest-keys';
import { projectCreate } from './commands/project-create';
import { tokenCreate, tokenList, tokenRevoke } from './commands/tokens';
import { userCreate } from './commands/user-create';

/** Every command of `pnpm svc`, by its words (USAGE lists them in this order). */
const COMMANDS = new Map<string, Command>(
  [
    bootstrap,
    projectCreate,
    userCreate,
    tokenCreate,
    tokenList,
    tokenRevoke,
    ingestKeyCreate,
    ingestKeyOrigins,
    ingestKeyRevoke,
    capabilitySet,
    auditVerify,
  ].map((command) => [command.name, command]),
);

export async function runCommand(args: ParsedArgs, call: AdminCall): Promise<CommandOutput> {
  const [group, action] = args.positionals;
  const command = COMMANDS.get(action === undefined ? (group ?? '') : `${group} ${action}`);
  if (!command) throw usage(group ? `unknown command "${args.positionals.join(' ')}"` : 'missing command');
  if (args.positionals.length !== command.positionals)
    throw usage(`unexpected arguments: ${args.positionals.join(' ')}`);
  return command.run(args, call);
}
