import { EXPORTER_HEADER, formatTraceparent, parseHttpUrl, type Tracer, templatePath } from '@svc/sdk-core';
import { type NetworkHooks, openedByFetch } from './network';

/** What the instrumentation uses of an XMLHttpRequest (typed here: Node's types have none). */
interface Xhr {
  status: number;
  addEventListener(type: string, listener: () => void, options?: { once?: boolean }): void;
}
interface XhrPrototype {
  open(this: Xhr, method: string, url: string, ...rest: unknown[]): void;
  setRequestHeader(this: Xhr, name: string, value: string): void;
  send(this: Xhr, body?: unknown): void;
}

interface Pending {
  method: string;
  url: string;
  /** Opened by the instrumented fetch (React Native's fetch is built on XMLHttpRequest). */
  viaFetch: boolean;
  /** The app set traceparent itself (its choice wins), or the SDK's own request. */
  ownTraceparent: boolean;
  exporter: boolean;
}

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
  const proto = XhrClass.prototype;
  const { open, send, setRequestHeader } = proto;
  const pending = new WeakMap<Xhr, Pending>();

  const tracedOpen: XhrPrototype['open'] = function (method, url, ...rest) {
    pending.set(this, {
      method: String(method).toUpperCase(),
      url: String(url),
      viaFetch: openedByFetch(),
      ownTraceparent: false,
      exporter: false,
    });
    return open.call(this, method, url, ...rest);
  };

  const tracedSetRequestHeader: XhrPrototype['setRequestHeader'] = function (name, value) {
    const request = pending.get(this);
    const header = String(name).toLowerCase();
    if (request && header === 'traceparent') request.ownTraceparent = true;
    if (request && header === EXPORTER_HEADER) request.exporter = true;
    return setRequestHeader.call(this, name, value);
  };

  const tracedSend: XhrPrototype['send'] = function (body) {
    const request = pending.get(this);
    const url = request ? parseHttpUrl(request.url) : undefined;
    if (request && url && !request.viaFetch && !request.exporter && !hooks.isOwn(request.url)) {
      const span = tracer.startSpan(`${request.method} ${url.host}${templatePath(url.pathname)}`, {
        kind: 'client',
      });
      span.setAttribute('http.method', request.method);
      span.setAttribute('http.url', `${url.origin}${url.pathname}`);
      if (!request.ownTraceparent && hooks.propagate(request.url))
        setRequestHeader.call(this, 'traceparent', formatTraceparent(span.context));
      const started = Date.now();
      let failure: string | undefined;
      for (const event of ['error', 'timeout', 'abort'])
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
          hooks.seen({
            method: request.method,
            url: request.url,
            ...(failure ? { failure } : { status: this.status }),
            durationMs: Date.now() - started,
          });
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
