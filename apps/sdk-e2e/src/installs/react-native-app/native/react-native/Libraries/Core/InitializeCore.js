// What React Native sets up before the app's code runs, with its native side played here: timers,
// fetch, AbortController, performance, TextEncoder and URL (React Native's JavaScript gets them
// from the phone; the Hermes command line has none of them), and the handler that ends the app
// after a fatal error. The phone has no network here: the app dies with its reports in storage,
// which it prints (Hermes's `print`) as its last words, `SVC_STORAGE <json>`, for the test to
// carry to the next start.
const host = {
  appState: 'active',
  appStateListeners: [],
  os: 'android',
  osVersion: 34,
  release: '14',
  storage: {},
  ...globalThis.__hostConfig,
};
globalThis.__nativeHost = host;

// Nothing runs in a dead process: a timer set before the app died never fires.
let dead = false;
const engineSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = (fn, ms, ...args) => engineSetTimeout(() => dead || fn(...args), ms);
const intervals = new Map();
let nextInterval = 1;
globalThis.setInterval = (fn, ms) => {
  const id = nextInterval++;
  const tick = () => {
    intervals.set(id, globalThis.setTimeout(tick, ms));
    fn();
  };
  intervals.set(id, globalThis.setTimeout(tick, ms));
  return id;
};
globalThis.clearInterval = (id) => {
  globalThis.clearTimeout(intervals.get(id));
  intervals.delete(id);
};
const started = Date.now();
globalThis.performance ??= { now: () => Date.now() - started };
globalThis.requestAnimationFrame ??= (callback) =>
  globalThis.setTimeout(() => callback(Date.now() - started), 16);
globalThis.fetch = () => Promise.reject(new TypeError('Network request failed'));

// The Hermes of 2022 that runs on this machine lacks what React Native's Hermes has today.
if (!Array.prototype.at)
  Object.defineProperty(Array.prototype, 'at', {
    configurable: true,
    writable: true,
    value(index) {
      const i = Math.trunc(index) || 0;
      return this[i < 0 ? this.length + i : i];
    },
  });
class AbortSignal {
  aborted = false;
  listeners = [];
  addEventListener(_type, listener) {
    this.listeners.push(listener);
  }
  removeEventListener(_type, listener) {
    this.listeners = this.listeners.filter((l) => l !== listener);
  }
}
globalThis.AbortController ??= class AbortController {
  signal = new AbortSignal();
  abort() {
    if (this.signal.aborted) return;
    this.signal.aborted = true;
    for (const listener of this.signal.listeners) listener({ type: 'abort' });
  }
};
globalThis.TextEncoder ??= class TextEncoder {
  encode(text) {
    const bytes = unescape(encodeURIComponent(text));
    const out = new Uint8Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) out[i] = bytes.charCodeAt(i);
    return out;
  }
};
const URL_PARTS =
  /^([a-z][a-z0-9+.-]*:)\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^:/?#]*)(?::(\d+))?([^?#]*)(\?[^#]*)?(#.*)?$/i;
/** A URL's parts: enough of the WHATWG URL for the SDK's DSN and the requests it sends. */
function partsOf(url, base) {
  const m = URL_PARTS.exec(String(url));
  if (m) return m;
  if (base === undefined) throw new TypeError(`Invalid URL: ${url}`);
  const root = partsOf(base);
  return partsOf(
    `${root[1]}//${root[4]}${root[5] ? `:${root[5]}` : ''}${String(url).startsWith('/') ? '' : '/'}${url}`,
  );
}
globalThis.URL ??= class URL {
  constructor(url, base) {
    const m = partsOf(url, base);
    this.protocol = m[1].toLowerCase();
    this.username = m[2] ?? '';
    this.password = m[3] ?? '';
    this.hostname = m[4].toLowerCase();
    this.port = m[5] ?? '';
    this.host = this.port ? `${this.hostname}:${this.port}` : this.hostname;
    this.pathname = m[6] || '/';
    this.search = m[7] ?? '';
    this.hash = m[8] ?? '';
    this.origin = `${this.protocol}//${this.host}`;
    this.href = `${this.origin}${this.pathname}${this.search}${this.hash}`;
  }
  toString() {
    return this.href;
  }
};

// React Native's exceptions manager: after a fatal error the app ends.
globalThis.ErrorUtils.setGlobalHandler((error, isFatal) => {
  if (!isFatal || dead) return;
  globalThis.print(`SVC_CRASH ${JSON.stringify(String(error?.stack))}`);
  globalThis.print(`SVC_STORAGE ${JSON.stringify(host.storage)}`);
  dead = true;
});

// The user taps "Pay" once the app has started: the native side calls into the app's JavaScript,
// and an error thrown there is fatal, as in React Native's bridge.
globalThis.setTimeout(() => {
  try {
    host.onPress();
  } catch (error) {
    globalThis.ErrorUtils.reportFatalError(error);
  }
}, 0);
