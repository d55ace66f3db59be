/** What the SDKs read of an absolute http(s) URL. */
export interface HttpUrl {
  /** `scheme://host[:port]`: lowercased, without credentials or a default port. */
  origin: string;
  /** `host[:port]` as in `origin`. */
  host: string;
  /** The path without query and fragment; `/` when empty. */
  pathname: string;
  /** `user:password` before the host, as written; '' when none. */
  userinfo: string;
}

// The greedy userinfo ends at the last `@` before the path, as a WHATWG parser reads it.
const HTTP_URL = /^(https?):\/\/(?:([^/?#]*)@)?([^/?#]+)([^?#]*)/i;

/**
 * The parts of an absolute http(s) URL, or undefined for anything else. Read here rather than
 * from `URL`'s getters: React Native's global `URL` is not the WHATWG one (its `origin` keeps
 * `user:password@`, it lowercases nothing, a relative URL does not throw). On a WHATWG `href`
 * this gives what `URL`'s getters give.
 */
export function parseHttpUrl(href: string): HttpUrl | undefined {
  const match = HTTP_URL.exec(href);
  if (!match) return undefined;
  const scheme = match[1]!.toLowerCase();
  const host = match[3]!.toLowerCase().replace(scheme === 'http' ? /:80$/ : /:443$/, '');
  return { origin: `${scheme}://${host}`, host, pathname: match[4] || '/', userinfo: match[2] ?? '' };
}
