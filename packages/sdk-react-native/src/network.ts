/** One request of the app as the instrumentation saw it: a breadcrumb for the next crash. */
export interface RequestSeen {
  method: string;
  url: string;
  status?: number;
  /** `error`, `timeout`, `abort`: no answer. */
  failure?: string;
  durationMs: number;
}

/**
 * What fetch and XMLHttpRequest instrumentation share: React Native's fetch is built on
 * XMLHttpRequest (whatwg-fetch), so an instrumented fetch marks the requests it opens while it
 * runs, and the XMLHttpRequest instrumentation leaves those alone: one span per request.
 */
export interface NetworkHooks {
  /** The SDK's own endpoints (ingest, recall): never traced, no breadcrumbs. */
  isOwn(url: string): boolean;
  /** Whether `url` may carry `traceparent`. */
  propagate(url: string): boolean;
  seen(request: RequestSeen): void;
}

let fetchDepth = 0;

/** Runs `fn` marked as inside an instrumented fetch (what it opens synchronously is fetch's). */
export function insideFetch<T>(fn: () => T): T {
  fetchDepth++;
  try {
    return fn();
  } finally {
    fetchDepth--;
  }
}

export const openedByFetch = (): boolean => fetchDepth > 0;

/** The URL without query and fragment: they may hold tokens, and breadcrumbs are kept. */
export const withoutQuery = (url: string): string => url.split(/[?#]/)[0] ?? '';
