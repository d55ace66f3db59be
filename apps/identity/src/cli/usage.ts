// What `pnpm svc --help` prints, and what follows every usage error.
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
