import { formatTraceparent, type Tracer, templatePath } from '@svc/sdk-core';
import { type PropagateTo, propagationRule } from './propagation';

interface Pending {
  method: string;
  url: URL | undefined;
  /** The app set traceparent itself: its choice wins. */
  ownTraceparent: boolean;
}

/**
 * Patches XMLHttpRequest (and so every library built on it): a client span from `send` to
 * `loadend`, a child of the active span, with `traceparent` on requests to the page's origin and
 * to `propagateTo`. Status error on a 5xx answer, a network error, a timeout or an abort. Requests
 * to the ingest endpoint are left alone. Returns the function that puts the originals back.
 */
export function instrumentXhr(tracer: Tracer, options: { propagateTo?: PropagateTo } = {}): () => void {
  const proto = XMLHttpRequest.prototype;
  const { open, send, setRequestHeader } = proto;
  const ingestOrigin = new URL(tracer.exporter.endpoint).origin;
  const propagate = propagationRule(options.propagateTo);
  const pending = new WeakMap<XMLHttpRequest, Pending>();

  const tracedOpen = function (this: XMLHttpRequest, method: string, url: string | URL, ...rest: unknown[]) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(String(url), location.href);
    } catch {
      parsed = undefined;
    }
    pending.set(this, { method: String(method).toUpperCase(), url: parsed, ownTraceparent: false });
    return (open as (...args: unknown[]) => void).call(this, method, url, ...rest);
  } as typeof proto.open;

  const tracedSetRequestHeader = function (this: XMLHttpRequest, name: string, value: string) {
    const request = pending.get(this);
    if (request && name.toLowerCase() === 'traceparent') request.ownTraceparent = true;
    return setRequestHeader.call(this, name, value);
  };

  const tracedSend = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null) {
    const request = pending.get(this);
    const url = request?.url;
    if (request && url && url.origin !== ingestOrigin) {
      const span = tracer.startSpan(`${request.method} ${url.host}${templatePath(url.pathname)}`, {
        kind: 'client',
      });
      span.setAttribute('http.method', request.method);
      span.setAttribute('http.url', `${url.origin}${url.pathname}`);
      if (!request.ownTraceparent && propagate(url))
        setRequestHeader.call(this, 'traceparent', formatTraceparent(span.context));
      let failure: string | undefined;
      for (const event of ['error', 'timeout', 'abort'] as const)
        this.addEventListener(event, () => {
          failure = event;
        });
      this.addEventListener(
        'loadend',
        () => {
          if (failure) {
            span.setAttribute('http.failure', failure);
            span.setStatus('error');
          } else {
            span.setAttribute('http.status_code', this.status);
            span.setStatus(this.status >= 500 ? 'error' : 'ok');
          }
          span.end();
        },
        { once: true },
      );
    }
    return send.call(this, body);
  };

  proto.open = tracedOpen;
  proto.setRequestHeader = tracedSetRequestHeader;
  proto.send = tracedSend;
  return () => {
    if (proto.open === tracedOpen) proto.open = open;
    if (proto.setRequestHeader === tracedSetRequestHeader) proto.setRequestHeader = setRequestHeader;
    if (proto.send === tracedSend) proto.send = send;
  };
}
