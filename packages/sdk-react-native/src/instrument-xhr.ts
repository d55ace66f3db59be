import { type Tracer, traceXhr, type Xhr, type XhrPrototype } from '@svc/sdk-core';
import { type NetworkHooks, openedByFetch, type RequestSeen } from './network';

/**
 * Patches XMLHttpRequest (and so axios and every library on it): a client span from `send` to
 * `loadend`, a child of the active span, `traceparent` where `hooks.propagate` allows, and a
 * network breadcrumb. Status error on a 5xx answer, a network error, a timeout or an abort.
 * Requests the instrumented fetch opened, and the SDK's own, are left alone. Returns the function
 * that puts the originals back; does nothing where there is no XMLHttpRequest.
 */
export function instrumentXhr(tracer: Tracer, hooks: NetworkHooks): () => void {
  const XhrClass = (globalThis as { XMLHttpRequest?: { prototype: XhrPrototype } }).XMLHttpRequest;
  if (!XhrClass) return () => undefined;
  return traceXhr(XhrClass.prototype, tracer, {
    // React Native's fetch is built on XMLHttpRequest: a request it opened is fetch's span.
    skip: (url) => openedByFetch() || hooks.isOwn(url),
    propagate: hooks.propagate,
    sent: breadcrumbOnEnd(hooks.seen),
  });
}

/**
 * The network breadcrumb of a traced request, told to `seen` when it ends (after its span ended):
 * its status, or `failure` (`error`, `timeout`, `abort`) without an answer. URL as opened.
 */
function breadcrumbOnEnd(seen: (request: RequestSeen) => void) {
  return (xhr: Xhr, method: string, url: string) => {
    const started = Date.now();
    let failure: string | undefined;
    for (const event of ['error', 'timeout', 'abort'])
      xhr.addEventListener(event, () => {
        failure = event;
      });
    xhr.addEventListener(
      'loadend',
      () =>
        seen({
          method,
          url,
          ...(failure ? { failure } : { status: xhr.status }),
          durationMs: Date.now() - started,
        }),
      { once: true },
    );
  };
}
