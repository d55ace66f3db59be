/** Where and as whom the SDK sends: parsed from the DSN an ingest key comes with. */
export interface IngestTarget {
  /** The core's base URL, without the project path, e.g. http://localhost:8080. */
  endpoint: string;
  keyId: string;
  secret: string;
  projectId: string;
}

/**
 * `http://<key_id>:<secret>@<host>:<port>/<project_id>` (docs/ingest.md, "Getting a key"). A DSN
 * that is not of this form throws at once, with the form in the message: a typo must not turn
 * into silently dropped telemetry.
 */
export function parseDsn(dsn: string): IngestTarget {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    throw new TypeError('dsn must look like http://<key_id>:<secret>@<host>:<port>/<project_id>');
  }
  const projectId = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ''));
  if (
    !/^https?:$/.test(url.protocol) ||
    !url.username ||
    !url.password ||
    !projectId ||
    projectId.includes('/')
  )
    throw new TypeError('dsn must look like http://<key_id>:<secret>@<host>:<port>/<project_id>');
  return {
    endpoint: url.origin,
    keyId: decodeURIComponent(url.username),
    secret: decodeURIComponent(url.password),
    projectId,
  };
}
