import type { IngestKey } from './store/ingest-keys';

/** The creation answer: the DSN form of docs/ingest.md, `http://<key_id>:<secret>@<host>/<project_id>`. */
export function ingestKeyAnswer(key: IngestKey, ingestEndpoint: string) {
  const dsn = new URL(ingestEndpoint);
  dsn.username = key.key_id;
  dsn.password = key.secret;
  dsn.pathname = `/${encodeURIComponent(key.project_id)}`;
  return { key_id: key.key_id, secret: key.secret, project_id: key.project_id, dsn: dsn.toString() };
}
