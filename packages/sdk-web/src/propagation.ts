/**
 * Which requests may carry `traceparent`. The header is not CORS-safelisted: on a cross-origin
 * request it triggers a preflight the API may refuse, breaking the app's own call. So only the
 * page's own origin gets it by default; other APIs are named in `propagateTo` (full origins or
 * URL prefixes as strings, or regular expressions over the URL) once they allow the header.
 */
export type PropagateTo = readonly (string | RegExp)[];

export function propagationRule(
  propagateTo: PropagateTo = [],
  pageOrigin = location.origin,
): (url: URL) => boolean {
  return (url) =>
    url.origin === pageOrigin ||
    propagateTo.some((rule) => (typeof rule === 'string' ? url.href.startsWith(rule) : rule.test(url.href)));
}
