/** Where and as whom the CLI uploads: parsed from the project's DSN (the SDKs' form). */
export interface UploadTarget {
  /** The core's base URL, e.g. https://ingest.example.com. */
  endpoint: string;
  keyId: string;
  secret: string;
  projectId: string;
}

export const DSN_FORM = 'https://<key_id>:<secret>@<host>[:<port>]/<project_id>';

/** The DSN's parts, or a message that shows the expected form (never the secret). */
export function parseDsn(dsn: string): UploadTarget | { error: string } {
  const bad = { error: `The DSN must look like ${DSN_FORM}.` };
  let url: URL;
  try {
    url = new URL(dsn.trim());
  } catch {
    return bad;
  }
  const projectId = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ''));
  if (
    !/^https?:$/.test(url.protocol) ||
    !url.username ||
    !url.password ||
    !projectId ||
    projectId.includes('/')
  )
    return bad;
  return {
    endpoint: url.origin,
    keyId: decodeURIComponent(url.username),
    secret: decodeURIComponent(url.password),
    projectId,
  };
}
