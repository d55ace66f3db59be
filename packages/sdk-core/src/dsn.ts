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
    // The platform's URL checks and normalises the DSN where it is a WHATWG one; the parts are
    // read from its href by our own parser, which is right on React Native's URL too.
    url = parseHttpUrl(new URL(dsn).href);
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
