import { type HttpUrl, parseHttpUrl } from './http-url';

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
  let url: HttpUrl | undefined;
  try {
    // The platform's URL only checks the DSN (where it is the WHATWG one: React Native's accepts
    // anything, and a polyfill's href may drop the credentials); the parts are read as written.
    new URL(dsn);
    url = parseHttpUrl(dsn);
  } catch {
    // reported below
  }
  const colon = url ? url.userinfo.indexOf(':') : -1;
  const keyId = url ? url.userinfo.slice(0, colon) : '';
  const secret = url ? url.userinfo.slice(colon + 1) : '';
  const projectId = url ? decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, '')) : '';
  if (!url || colon < 1 || !secret || !projectId || projectId.includes('/'))
    throw new TypeError('dsn must look like http://<key_id>:<secret>@<host>:<port>/<project_id>');
  return {
    endpoint: url.origin,
    keyId: decodeURIComponent(keyId),
    secret: decodeURIComponent(secret),
    projectId,
  };
}
