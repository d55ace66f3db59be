import type { Logger } from '@svc/tool-kit';
import type { IngestKey } from './store/ingest-keys';

/** The creation answer: the DSN form of docs/ingest.md, `http://<key_id>:<secret>@<host>/<project_id>`. */
export function ingestKeyAnswer(key: IngestKey, ingestEndpoint: string) {
  const dsn = new URL(ingestEndpoint);
  dsn.username = key.key_id;
  dsn.password = key.secret;
  dsn.pathname = `/${encodeURIComponent(key.project_id)}`;
  return {
    key_id: key.key_id,
    secret: key.secret,
    project_id: key.project_id,
    dsn: dsn.toString(),
    allowed_origins: key.allowed_origins,
  };
}

/** After a change of the origins: never the secret, which is shown only at creation. */
export function ingestKeyOriginsAnswer(key: IngestKey) {
  return {
    key_id: key.key_id,
    project_id: key.project_id,
    active: key.active,
    allowed_origins: key.allowed_origins,
  };
}

/** Who may send from a browser changed: an operator's trail of it (the origins are not secret). */
export function logOriginsChange(logger: Logger, key: IngestKey, userId?: string): void {
  logger.info(
    {
      event: 'ingest_key_origins_set',
      key_id: key.key_id,
      project_id: key.project_id,
      allowed_origins: key.allowed_origins,
      ...(userId ? { user_id: userId } : {}),
    },
    'ingest key allowed origins set',
  );
}

/** A key was turned off: an operator's trail of who did it. */
export function logIngestKeyRevoked(logger: Logger, key: IngestKey, userId?: string): void {
  logger.info(
    {
      event: 'ingest_key_revoked',
      key_id: key.key_id,
      project_id: key.project_id,
      ...(userId ? { user_id: userId } : {}),
    },
    'ingest key revoked',
  );
}
