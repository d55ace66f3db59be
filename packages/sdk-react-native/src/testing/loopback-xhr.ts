import { request } from 'node:http';

// React Native's networking in Node, for the instrumentation's tests: an XMLHttpRequest over
// node:http (real requests on loopback), and a fetch built on it the way whatwg-fetch (React
// Native's fetch) is: the request opened and sent synchronously inside fetch.

export class LoopbackXhr {
  status = 0;
  private method = 'GET';
  private url = '';
  private readonly headers: Record<string, string> = {};
  private readonly listeners = new Map<string, (() => void)[]>();

  open(method: string, url: string): void {
    this.method = method;
    this.url = url;
  }

  setRequestHeader(name: string, value: string): void {
    this.headers[name.toLowerCase()] = value;
  }

  addEventListener(type: string, listener: () => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(body?: string | null): void {
    const req = request(this.url, { method: this.method, headers: this.headers }, (res) => {
      res.resume();
      res.on('end', () => {
        this.status = res.statusCode ?? 0;
        this.emit('load');
        this.emit('loadend');
      });
    });
    req.on('error', () => {
      this.emit('error');
      this.emit('loadend');
    });
    req.end(body ?? undefined);
  }

  private emit(type: string): void {
    for (const listener of this.listeners.get(type) ?? []) listener();
  }
}

/** fetch over the global XMLHttpRequest, opened and sent synchronously, as whatwg-fetch does. */
export const fetchOverXhr = ((input: string | URL | Request, init?: RequestInit) =>
  new Promise<Response>((resolve, reject) => {
    const Xhr = (globalThis as unknown as { XMLHttpRequest: new () => LoopbackXhr }).XMLHttpRequest;
    const xhr = new Xhr();
    xhr.open(init?.method ?? 'GET', String(input));
    for (const [name, value] of new Headers(init?.headers)) xhr.setRequestHeader(name, value);
    xhr.addEventListener('load', () => resolve(new Response(null, { status: xhr.status })));
    xhr.addEventListener('error', () => reject(new TypeError('Network request failed')));
    xhr.send((init?.body as string | undefined) ?? null);
  })) as typeof fetch;
