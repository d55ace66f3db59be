import { randomBytes } from 'node:crypto';
import type { AuditVerification, ProjectVerification } from '../checkpoints/verify';
import type { AdminCall } from './admin-client';
import { CliError } from './cli-config';

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

const CAPABILITIES = ['vis_trace', 'vis_recall', 'vis_ai_verifier'];

export const USAGE = `Usage: pnpm svc <command> [--json]

  bootstrap [--org-name N] [--project-name N] [--email E] [--password P] [--token] [--ingest-key]
  project create <name> [--org <org_id>]
  user create --org <org_id> --email E [--password P]
  token create --project <project_id> [--name N] [--days D]
  token list --project <project_id>
  token revoke <token_id>
  ingest-key create --project <project_id> [--origin <origin>]...
  ingest-key origins <key_id> [--origin <origin>]...
  ingest-key revoke <key_id>
  capability set --org <org_id> <vis_trace|vis_recall|vis_ai_verifier> on|off
  audit verify [--project <project_id>]

Talks to identity at SVC_IDENTITY_INTERNAL_URL (default http://localhost:8081) with
SVC_INTERNAL_SECRET, or the secret the standalone keeps in its data dir: SVC_DATA_DIR,
by default .data at the repository root (<data dir>/internal-secret).
user create signs a person up for the web console; without --password one is generated and shown once.
bootstrap --token and --ingest-key also create the project's first MCP token and ingest key (each
shown once), so a fresh stack is set up by one command.
--origin (repeatable) names a web origin, e.g. https://app.example.com, whose pages may send with
the key from a browser; ingest-key origins replaces a key's list (no --origin: no browser may).
With --json every command prints exactly one JSON object on stdout. audit verify holds every
project's audit chain (or one) against the checkpoint log and exits 1 when any does not verify,
still printing the whole result.`;

const usage = (message: string) => new CliError(`${message}\n\n${USAGE}`, 2, 'usage');

function required(value: string | undefined, flag: string): string {
  if (!value) throw usage(`missing ${flag}`);
  return value;
}

function expectArgs(args: ParsedArgs, count: number): void {
  if (args.positionals.length !== count) throw usage(`unexpected arguments: ${args.positionals.join(' ')}`);
}

interface TokenItem {
  token_id: string;
  name: string;
  scopes: string[];
  expires_at: string;
  revoked_at: string | null;
  last_four: string;
}

export async function runCommand(args: ParsedArgs, call: AdminCall): Promise<CommandOutput> {
  const [group, action] = args.positionals;
  const v = args.values;
  const key = action === undefined ? group : `${group} ${action}`;
  switch (key) {
    case 'bootstrap': {
      expectArgs(args, 1);
      const body = {
        org_name: v['org-name'] ?? 'Default organization',
        project_name: v['project-name'] ?? 'demo',
        user_email: v.email ?? 'admin@example.com',
        ...(v.password ? { user_password: v.password } : {}),
      };
      const r = await call<{
        org_id: string;
        project_id: string;
        user_id: string;
        created: boolean;
        user_password?: string;
      }>('POST', '/internal/v1/admin/bootstrap', body);
      const password = r.user_password ? `, password ${r.user_password} (shown once)` : '';
      const lines = [
        `${r.created ? 'set up' : 'already set up'}: org ${r.org_id}, project ${r.project_id}, user ${body.user_email} (${r.user_id})${password}`,
      ];
      const extra: Record<string, unknown> = {};
      if (v.token) {
        const t = await call<{ token: string; token_id: string; expires_at: string }>(
          'POST',
          '/internal/v1/admin/tokens',
          { project_id: r.project_id, user_id: r.user_id, name: 'bootstrap' },
        );
        extra.token = t;
        lines.push(`MCP token (shown once; token ${t.token_id}, expires ${t.expires_at}): ${t.token}`);
      }
      if (v['ingest-key']) {
        const k = await call<{ key_id: string; secret: string; dsn: string }>(
          'POST',
          '/internal/v1/admin/ingest-keys',
          { project_id: r.project_id },
        );
        extra.ingest_key = k;
        lines.push(`ingest key ${k.key_id} (secret shown once)\nDSN: ${k.dsn}`);
      }
      return { json: { ...r, ...extra }, text: lines.join('\n') };
    }
    case 'project create': {
      expectArgs(args, 3);
      const body = { name: args.positionals[2]!, ...(v.org ? { org_id: v.org } : {}) };
      const r = await call<{ project_id: string; org_id: string; name: string }>(
        'POST',
        '/internal/v1/admin/projects',
        body,
      );
      return { json: r, text: `project ${r.project_id} "${r.name}" in org ${r.org_id}` };
    }
    case 'user create': {
      expectArgs(args, 2);
      // A generated password: 18 random bytes, base64url (144 bits), shown once.
      const password = v.password ?? randomBytes(18).toString('base64url');
      const r = await call<{ user_id: string; email: string; org_id: string }>(
        'POST',
        '/internal/v1/admin/users',
        {
          email: required(v.email, '--email'),
          password,
          org_id: required(v.org, '--org'),
        },
      );
      const shown = v.password ? '' : `, password ${password} (shown once)`;
      return {
        json: { ...r, ...(v.password ? {} : { password }) },
        text: `user ${r.email} (${r.user_id}) in org ${r.org_id}${shown}`,
      };
    }
    case 'token create': {
      expectArgs(args, 2);
      const days = v.days === undefined ? undefined : Number(v.days);
      if (days !== undefined && !Number.isInteger(days)) throw usage('--days must be a whole number of days');
      const body = {
        project_id: required(v.project, '--project'),
        ...(v.name ? { name: v.name } : {}),
        ...(days !== undefined ? { days } : {}),
      };
      const r = await call<{ token: string; token_id: string; expires_at: string }>(
        'POST',
        '/internal/v1/admin/tokens',
        body,
      );
      return {
        json: r,
        text: `${r.token}\n(token ${r.token_id}, expires ${r.expires_at}; shown only this once)`,
      };
    }
    case 'token list': {
      expectArgs(args, 2);
      const project = required(v.project, '--project');
      const r = await call<{ items: TokenItem[] }>(
        'GET',
        `/internal/v1/admin/tokens?project_id=${encodeURIComponent(project)}`,
      );
      const lines = r.items.map(
        (t) =>
          `${t.token_id}  ${t.name}  ...${t.last_four}  ${t.scopes.join(',')}  expires ${t.expires_at}` +
          (t.revoked_at ? `  revoked ${t.revoked_at}` : ''),
      );
      return { json: r, text: lines.length > 0 ? lines.join('\n') : 'no tokens' };
    }
    case 'token revoke': {
      expectArgs(args, 3);
      const id = args.positionals[2]!;
      const r = await call<{ token_id: string; revoked_at: string }>(
        'POST',
        `/internal/v1/admin/tokens/${encodeURIComponent(id)}/revoke`,
      );
      return { json: r, text: `token ${r.token_id} revoked at ${r.revoked_at}` };
    }
    case 'ingest-key create': {
      expectArgs(args, 2);
      const r = await call<{ key_id: string; dsn: string; allowed_origins: string[] }>(
        'POST',
        '/internal/v1/admin/ingest-keys',
        { project_id: required(v.project, '--project'), ...(v.origin ? { allowed_origins: v.origin } : {}) },
      );
      const origins = r.allowed_origins.length > 0 ? `\n${originsText(r.allowed_origins)}` : '';
      return { json: r, text: `ingest key ${r.key_id}\nDSN: ${r.dsn}${origins}` };
    }
    case 'ingest-key revoke': {
      expectArgs(args, 3);
      const id = args.positionals[2]!;
      const r = await call<{ key_id: string; project_id: string; active: boolean }>(
        'POST',
        `/internal/v1/admin/ingest-keys/${encodeURIComponent(id)}/revoke`,
      );
      return {
        json: r,
        text: `ingest key ${r.key_id} of project ${r.project_id} revoked (the core refuses it within 30 s)`,
      };
    }
    case 'ingest-key origins': {
      expectArgs(args, 3);
      const id = args.positionals[2]!;
      const r = await call<{ key_id: string; allowed_origins: string[] }>(
        'PUT',
        `/internal/v1/admin/ingest-keys/${encodeURIComponent(id)}/allowed-origins`,
        { allowed_origins: v.origin ?? [] },
      );
      return { json: r, text: `ingest key ${r.key_id}: ${originsText(r.allowed_origins)}` };
    }
    case 'capability set': {
      expectArgs(args, 4);
      const org = required(v.org, '--org');
      const [, , capability, state] = args.positionals as [string, string, string, string];
      if (!CAPABILITIES.includes(capability)) throw usage(`unknown capability "${capability}"`);
      if (state !== 'on' && state !== 'off') throw usage('the capability state must be on or off');
      const r = await call<{ org_id: string; capabilities: string[] }>(
        'PUT',
        `/internal/v1/admin/orgs/${encodeURIComponent(org)}/capabilities/${capability}`,
        { enabled: state === 'on' },
      );
      return { json: r, text: `org ${r.org_id} capabilities: ${r.capabilities.join(', ') || '(none)'}` };
    }
    case 'audit verify': {
      expectArgs(args, 2);
      if (v.project === '') throw usage('--project needs a project id');
      const query = v.project === undefined ? '' : `?project_id=${encodeURIComponent(v.project)}`;
      const r = await call<AuditVerification | ProjectVerification>(
        'GET',
        `/internal/v1/audit/verify${query}`,
      );
      return { json: r, text: verificationText(r), ...(r.ok ? {} : { exitCode: 1 }) };
    }
    default:
      throw usage(group ? `unknown command "${args.positionals.join(' ')}"` : 'missing command');
  }
}

const originsText = (origins: readonly string[]) =>
  origins.length > 0
    ? `allowed origins: ${origins.join(', ')}`
    : 'no allowed origins (no browser may send with it)';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line per project, then the log's warnings and unreadable lines, then the verdict. */
function verificationText(r: AuditVerification | ProjectVerification): string {
  const projects = 'projects' in r ? r.projects : [r];
  const lines: string[] = [];
  for (const p of projects) {
    if (p.ok) {
      const anchored = p.checkpoint
        ? `checkpoint seq ${p.checkpoint.seq} at ${p.checkpoint.at}`
        : 'no checkpoint';
      lines.push(`ok     ${p.project_id}  ${plural(p.checked, 'record')}, ${anchored}`);
      continue;
    }
    const at = p.broken_at_seq === undefined ? '' : ` at seq ${p.broken_at_seq}`;
    lines.push(`BROKEN ${p.project_id}  ${p.code ?? 'broken'}${at}: ${p.reason ?? 'the chain is broken'}`);
    if (p.missing_from_seq !== undefined && p.missing_to_seq !== undefined) {
      lines.push(`       missing seq ${p.missing_from_seq}-${p.missing_to_seq}`);
    }
    // The first problem is the line above; the others follow it.
    for (const other of (p.problems ?? []).slice(1)) {
      const otherAt = other.broken_at_seq === undefined ? '' : ` at seq ${other.broken_at_seq}`;
      lines.push(`       also ${other.code}${otherAt}: ${other.reason}`);
    }
  }
  if (!('projects' in r)) {
    for (const warning of r.warnings ?? []) lines.push(`warning: ${warning}`);
    lines.push(r.ok ? `ok: ${r.project_id} verified` : `BROKEN: ${r.project_id} failed verification`);
    return lines.join('\n');
  }
  const log = r.checkpoint_log;
  for (const warning of log.warnings) lines.push(`warning: ${warning}`);
  for (const u of log.unreadable) lines.push(`unreadable: line ${u.line} of ${log.location}: ${u.reason}`);
  const unlisted = log.unreadable_lines - log.unreadable.length;
  if (unlisted > 0) lines.push(`unreadable: ${plural(unlisted, 'more line')} of ${log.location}`);
  if (r.ok) {
    lines.push(
      `ok: ${plural(projects.length, 'project')} verified against ${log.location} (${plural(log.lines, 'checkpoint line')})`,
    );
  } else {
    const broken = projects.filter((p) => !p.ok).length;
    const why: string[] = [];
    if (broken > 0) why.push(`${broken} of ${plural(projects.length, 'project')} failed verification`);
    if (log.unreadable_lines > 0)
      why.push(`${plural(log.unreadable_lines, 'line')} of the checkpoint log cannot be read`);
    lines.push(`BROKEN: ${why.join('; ')}`);
  }
  return lines.join('\n');
}
