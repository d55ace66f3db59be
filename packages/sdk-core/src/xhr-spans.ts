import { answered, startClientSpan } from './client-span';
import { EXPORTER_HEADER } from './exporter-types';
import { type HttpUrl, parseHttpUrl } from './http-url';
import { formatTraceparent } from './traceparent';
import type { Tracer } from './tracer';

/** What the instrumentation uses of an XMLHttpRequest (typed here: Node's types have none). */
export interface Xhr {
  status: number;
  addEventListener(type: string, listener: () => void, options?: { once?: boolean }): void;
}
export interface XhrPrototype {
  open(this: Xhr, method: string, url: string | URL, ...rest: unknown[]): void;
  setRequestHeader(this: Xhr, name: string, value: string): void;
  send(this: Xhr, body?: unknown): void;
}

export interface XhrTracingRules {
  /** The base of relative URLs, read at each `open` (a page's location, which may change). */
  base?: () => string;
  /** Whether the request opened with `url` is left alone (asked at `open`). */
  skip?(url: string): boolean;
  /** Whether a request to `href` (absolute when `base` is given, else as opened) may carry `traceparent`. */
  propagate(href: string): boolean;
  /**
   * Told of every traced request as it is sent, after the span's own listeners (one it adds runs
   * after the span ended). A hook, not a report built here: only React Native keeps breadcrumbs,
   * and the web's bundle should not carry what builds them.
   */
  sent?(xhr: Xhr, method: string, href: string): void;
}

/**
 * A request opened to be traced: method, URL (absolute when `base` is given), its parts, and
 * whether the app set traceparent itself (its choice wins). A tuple: the web bundle pays for
 * property names, not for indexes.
 */
type Pending = [method: string, href: string, parts: HttpUrl, ownTraceparent?: boolean];

/**
 * Patches an XMLHttpRequest prototype (and so every library built on it): a client span from
 * `send` to `loadend`, a child of the active span, with `traceparent` where `rules.propagate`
 * allows. Status error on a 5xx answer, a network error, a timeout or an abort. Requests to the
 * ingest endpoint, those carrying the exporter header, those `rules.skip` names and URLs that are
 * not http(s) are left alone. Returns the function that puts the originals back.
 */
export function traceXhr(proto: XhrPrototype, tracer: Tracer, rules: XhrTracingRules): () => void {
  const { open, send, setRequestHeader } = proto;
  const ingestOrigin = parseHttpUrl(tracer.exporter.endpoint)?.origin;
  const pending = new WeakMap<Xhr, Pending>();

  const tracedOpen: XhrPrototype['open'] = function (method, url, ...rest) {
    const raw = String(url);
    let href: string;
    try {
      href = rules.base ? new URL(raw, rules.base()).href : raw;
    } catch {
      href = ''; // Not a URL: left alone.
    }
    const parts = parseHttpUrl(href);
    if (parts && parts.origin !== ingestOrigin && !rules.skip?.(raw))
      pending.set(this, [String(method).toUpperCase(), href, parts]);
    else pending.delete(this);
    return open.call(this, method, url, ...rest);
  };

  const tracedSetRequestHeader: XhrPrototype['setRequestHeader'] = function (name, value) {
    const request = pending.get(this);
    const header = String(name).toLowerCase();
    if (request && header === 'traceparent') request[3] = true;
    // The SDK's own request: never traced.
    if (header === EXPORTER_HEADER) pending.delete(this);
    return setRequestHeader.call(this, name, value);
  };

  const tracedSend: XhrPrototype['send'] = function (body) {
    const request = pending.get(this);
    if (request) {
      const [method, href, parts, ownTraceparent] = request;
      const span = startClientSpan(tracer, method, parts);
      if (!ownTraceparent && rules.propagate(href))
        setRequestHeader.call(this, 'traceparent', formatTraceparent(span.context));
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
          } else answered(span, this.status);
          span.end();
        },
        { once: true },
      );
      rules.sent?.(this, method, href);
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
