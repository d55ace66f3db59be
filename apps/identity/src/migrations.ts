import { type Migration, type Postgres, runMigrations } from '@svc/postgres';

// Released migrations are immutable (runMigrations refuses edited ones): add new ones at the end.
export const identityMigrations: Migration[] = [
  {
    id: '0001_orgs_users_projects',
    sql: `
      -- created_order: a stable creation order even when two rows share a created_at.
      CREATE TABLE orgs (
        org_id text PRIMARY KEY,
        created_order bigint GENERATED ALWAYS AS IDENTITY,
        name text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE TABLE org_capabilities (
        org_id text NOT NULL REFERENCES orgs (org_id),
        capability text NOT NULL CHECK (capability IN ('vis_trace', 'vis_recall', 'vis_ai_verifier')),
        enabled boolean NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (org_id, capability)
      );
      CREATE TABLE users (
        user_id text PRIMARY KEY,
        email text NOT NULL UNIQUE,
        password_hash text NOT NULL,
        org_id text NOT NULL REFERENCES orgs (org_id),
        created_at timestamptz NOT NULL
      );
      CREATE TABLE projects (
        project_id text PRIMARY KEY,
        created_order bigint GENERATED ALWAYS AS IDENTITY,
        org_id text NOT NULL REFERENCES orgs (org_id),
        name text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX projects_org ON projects (org_id, created_order);
    `,
  },
  {
    id: '0002_tokens_sessions_ingest_keys',
    sql: `
      CREATE TABLE tokens (
        token_id text PRIMARY KEY,
        created_order bigint GENERATED ALWAYS AS IDENTITY,
        token_sha256 text NOT NULL UNIQUE,
        name text NOT NULL,
        scopes text[] NOT NULL,
        org_id text REFERENCES orgs (org_id),
        project_id text REFERENCES projects (project_id),
        user_id text REFERENCES users (user_id),
        last_four text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz
      );
      CREATE INDEX tokens_project ON tokens (project_id, created_order);
      CREATE TABLE console_sessions (
        session_sha256 text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (user_id),
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        step_up_until timestamptz
      );
      CREATE TABLE ingest_keys (
        key_id text PRIMARY KEY,
        secret text NOT NULL,
        project_id text NOT NULL REFERENCES projects (project_id),
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL
      );
    `,
  },
  {
    // No foreign key to projects: stdio mode audits a project fixed by env that identity may not know.
    id: '0003_audit',
    sql: `
      CREATE TABLE audit_chain_heads (
        project_id text PRIMARY KEY,
        last_seq bigint NOT NULL,
        last_hash text NOT NULL
      );
      CREATE TABLE audit_records (
        project_id text NOT NULL,
        seq bigint NOT NULL,
        id uuid NOT NULL UNIQUE,
        at text NOT NULL,
        token_id text,
        user_id text,
        org_id text,
        tool text NOT NULL,
        transport text NOT NULL,
        status text NOT NULL,
        duration_ms bigint NOT NULL,
        request_id text NOT NULL,
        params text,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        PRIMARY KEY (project_id, seq)
      );
      CREATE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_records is append-only';
      END $$;
      CREATE TRIGGER audit_records_no_update_delete BEFORE UPDATE OR DELETE ON audit_records
        FOR EACH ROW EXECUTE FUNCTION audit_records_append_only();
      CREATE TRIGGER audit_records_no_truncate BEFORE TRUNCATE ON audit_records
        FOR EACH STATEMENT EXECUTE FUNCTION audit_records_append_only();
    `,
  },
  {
    id: '0004_invalidations',
    sql: `
      -- Changes that withdraw access, for the gateways' token caches (docs/decisions.md, token cache).
      -- seq is handed out under the lock of the single invalidation_head row, so events commit in seq
      -- order and "every event up to N" is a well-defined point a subscriber can acknowledge.
      CREATE TABLE invalidation_head (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        seq bigint NOT NULL
      );
      INSERT INTO invalidation_head (seq) VALUES (0);
      CREATE TABLE invalidation_events (
        seq bigint PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('token', 'org', 'project', 'all')),
        token_id text,
        org_id text,
        project_id text,
        at timestamptz NOT NULL
      );
      -- One row per subscribed gateway: its lease and the last event it has applied.
      CREATE TABLE invalidation_subscribers (
        subscriber_id text PRIMARY KEY,
        acked_seq bigint NOT NULL,
        lease_until timestamptz NOT NULL,
        connected_at timestamptz NOT NULL
      );
    `,
  },
  {
    // The browser origins that may send with a key (docs/ingest.md, "Browsers (CORS)"). text[] rather than
    // JSON in a text column: PostgreSQL and PGlite both take and give it as a JS string array (as
    // tokens.scopes already does), so no JSON is parsed or written by hand and no row can hold a
    // malformed list. Existing keys get the empty list: no browser may send with them.
    id: '0005_ingest_key_allowed_origins',
    sql: `
      ALTER TABLE ingest_keys ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}';
    `,
  },
  {
    // The web console runs tools through the gateway like any client, with a token of its own
    // per session and project (docs/console.md). Such a token is tied to its session: logging out
    // revokes it, and the MCP page does not list it among the tokens people made. "Last used" on
    // that page is the token's latest audited tool call, so the audit table gets an index by token.
    id: '0006_console_tool_tokens',
    sql: `
      ALTER TABLE tokens ADD COLUMN console_session_sha256 text;
      CREATE INDEX tokens_console_session ON tokens (console_session_sha256)
        WHERE console_session_sha256 IS NOT NULL;
      CREATE INDEX audit_records_token ON audit_records (project_id, token_id, seq)
        WHERE token_id IS NOT NULL;
    `,
  },
  {
    // Failed password checks (docs/console.md, "Sign-in throttling"), in the store rather than in
    // memory: a restart must not hand a guesser fresh attempts, and every identity instance must
    // see the same counters. Keys are digests of the account and address (throttle/keys.ts).
    // scope: 'pair' (an account from one address), 'account', 'address'.
    id: '0007_password_throttle',
    sql: `
      CREATE TABLE password_throttle (
        scope text NOT NULL CHECK (scope IN ('pair', 'account', 'address')),
        key text NOT NULL,
        failures integer NOT NULL,
        last_failure_at timestamptz NOT NULL,
        locked_until timestamptz NOT NULL,
        PRIMARY KEY (scope, key)
      );
      CREATE INDEX password_throttle_last_failure ON password_throttle (last_failure_at);
      -- Addresses that signed in to an account: in good standing with it (throttle/policy.ts).
      CREATE TABLE password_known_addresses (
        pair_key text PRIMARY KEY,
        last_success_at timestamptz NOT NULL
      );
      CREATE INDEX password_known_addresses_last_success ON password_known_addresses (last_success_at);
    `,
  },
  {
    // OAuth 2.1 sign-in for MCP clients (docs/console.md, "Connect with OAuth"). The authorization
    // server (oidc-provider) keeps its models (clients registered by DCR, interactions, codes, access
    // and refresh tokens, grants) as JSON documents, expired ones ignored. Each approved consent is
    // also a row of tokens, bound to one project like a pasted token: the /mcp page lists and
    // revokes it, and a revoked row makes every model of its grant unreadable.
    id: '0008_oauth',
    sql: `
      CREATE TABLE oauth_models (
        model text NOT NULL,
        id text NOT NULL,
        payload jsonb NOT NULL,
        grant_id text,
        uid text,
        expires_at timestamptz,
        consumed_at timestamptz,
        PRIMARY KEY (model, id)
      );
      CREATE INDEX oauth_models_grant ON oauth_models (grant_id) WHERE grant_id IS NOT NULL;
      CREATE INDEX oauth_models_uid ON oauth_models (uid) WHERE uid IS NOT NULL;
      CREATE INDEX oauth_models_expires ON oauth_models (expires_at) WHERE expires_at IS NOT NULL;
      ALTER TABLE tokens ADD COLUMN oauth_grant_id text UNIQUE;
      ALTER TABLE tokens ADD COLUMN oauth_client_id text;
    `,
  },
  {
    // The console's assistant calls tools as an MCP client with a token of minutes, bound to the
    // gateway's MCP resource like an OAuth access token (RFC 8707): another gateway sharing identity
    // refuses it. Pasted tokens keep no audience (any gateway of the stack).
    id: '0009_token_audience',
    sql: `
      ALTER TABLE tokens ADD COLUMN audience text;
    `,
  },
];

/** Brings the identity schema up to date; safe at every start. */
export function migrateIdentity(db: Postgres): Promise<string[]> {
  return runMigrations(db, identityMigrations);
}
