import { type Migration, type Postgres, runMigrations } from '@svc/postgres';

// Released migrations are immutable (runMigrations refuses edited ones): add new ones at the end.
export const recallMigrations: Migration[] = [
  {
    id: '0001_recall',
    sql: `
      CREATE TABLE recall_keys (
        project_id text NOT NULL,
        version integer NOT NULL,
        wrapped text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, version)
      );
      CREATE TABLE recall_files (
        file_id text PRIMARY KEY,
        project_id text NOT NULL,
        device_id text NOT NULL,
        user_id text,
        session_id text,
        file_name text NOT NULL,
        file_date date NOT NULL,
        size_bytes bigint NOT NULL,
        sha256 text NOT NULL,
        key_version integer NOT NULL,
        request_id text,
        uploaded_at timestamptz NOT NULL,
        uploaded_order bigint GENERATED ALWAYS AS IDENTITY
      );
      CREATE INDEX recall_files_project ON recall_files (project_id, uploaded_at DESC, uploaded_order DESC);
      CREATE TABLE recall_requests (
        request_id text PRIMARY KEY,
        project_id text NOT NULL,
        device_id text,
        user_id text,
        requested_by text NOT NULL,
        requested_at timestamptz NOT NULL,
        fulfilled_at timestamptz,
        file_id text,
        CHECK (device_id IS NOT NULL OR user_id IS NOT NULL)
      );
      CREATE INDEX recall_requests_pending ON recall_requests (project_id, device_id, user_id) WHERE fulfilled_at IS NULL;
      -- The recall audit trail: append-only, enforced by the database itself.
      CREATE TABLE recall_audit (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        project_id text NOT NULL,
        at timestamptz NOT NULL,
        action text NOT NULL CHECK (action IN ('trigger', 'download', 'view')),
        via text NOT NULL CHECK (via IN ('console', 'mcp', 'rest', 'stdio')),
        user_id text,
        token_id text,
        file_id text,
        device_id text,
        target_user_id text
      );
      CREATE INDEX recall_audit_project ON recall_audit (project_id, seq DESC);
      CREATE FUNCTION recall_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'recall_audit is append-only';
      END;
      $$;
      CREATE TRIGGER recall_audit_no_change BEFORE UPDATE OR DELETE ON recall_audit
        FOR EACH ROW EXECUTE FUNCTION recall_audit_append_only();
    `,
  },
  {
    id: '0002_device_replays',
    sql: `
      -- The nonce of every signed device request, kept while its signature is fresh: a request sent
      -- again (a replay) names a nonce seen before and is refused.
      CREATE TABLE recall_device_nonces (
        project_id text NOT NULL,
        nonce text NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, nonce)
      );
      CREATE INDEX recall_device_nonces_expiry ON recall_device_nonces (expires_at);
      -- One stored file per uploaded body: each upload is encrypted under a fresh IV, so the same
      -- bytes again are the same upload sent twice. Files stored before keep the first of theirs.
      CREATE TABLE recall_upload_digests (
        project_id text NOT NULL,
        sha256 text NOT NULL,
        file_id text NOT NULL,
        PRIMARY KEY (project_id, sha256)
      );
      INSERT INTO recall_upload_digests (project_id, sha256, file_id)
        SELECT DISTINCT ON (project_id, sha256) project_id, sha256, file_id
        FROM recall_files ORDER BY project_id, sha256, uploaded_order;
    `,
  },
];

export async function migrateRecall(db: Postgres): Promise<void> {
  await runMigrations(db, recallMigrations);
}
