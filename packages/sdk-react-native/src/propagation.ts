import { parseHttpUrl } from '@svc/sdk-core';

/**
 * Which requests carry `traceparent`. A native app sends no Origin and knows no CORS preflight, so
 * unlike a web page it may send the header anywhere without breaking a call: by default every
 * request carries it (except the SDK's own). `propagateTo` narrows it to full origins or URL
 * prefixes (strings) and regular expressions over the URL, e.g. to keep trace ids away from
 * third-party APIs.
 */
export type PropagateTo = readonly (string | RegExp)[];

export function propagationRule(propagateTo: PropagateTo | undefined): (url: string) => boolean {
  if (!propagateTo) return () => true;
  return (url) =>
    propagateTo.some((rule) => (typeof rule === 'string' ? url.startsWith(rule) : rule.test(url)));
}

/** `scheme://host[:port]` of an absolute http(s) URL, lowercased, without credentials; '' for anything else. */
export const originOf = (url: string): string => parseHttpUrl(url)?.origin ?? '';
