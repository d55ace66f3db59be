import type { DeviceInfo, HttpFetch, MobilePlatform } from '../platform';
import { fileStorage } from './file-storage';
import { nodeCompression, nodeCrypto } from './node-crypto';
import { type SimulatedApp, simulatedApp } from './simulated-app';

/** Node's fetch (undici), taken now (before the SDK instruments it), as the SDK's own sender. */
export function nodeFetch(original: typeof fetch = globalThis.fetch): HttpFetch {
  return (url, init) =>
    original(url, {
      method: init.method,
      headers: init.headers,
      // Bytes of an ArrayBuffer (never shared memory): typed so where the DOM's fetch types apply too.
      ...(init.body === undefined ? {} : { body: init.body as string | Uint8Array<ArrayBuffer> }),
      signal: init.signal,
    });
}

export interface NodePlatformOptions {
  /** Where the SDK keeps its state (the app's storage): one file per key. */
  dir: string;
  /** Default: an Android 14 phone. */
  device?: DeviceInfo;
  /** The SDK's own requests; default Node's fetch. */
  fetch?: HttpFetch;
  /** The app's lifecycle and errors; default a new simulated app in the foreground. */
  app?: SimulatedApp;
}

/**
 * The SDK's platform in Node: files for storage, node:crypto and zlib, Node's fetch, and a
 * simulated app's lifecycle and errors. The same SDK logic as on a phone, for tests and for
 * driving a simulated app against a real stack.
 */
export function nodePlatform(options: NodePlatformOptions): MobilePlatform & { app: SimulatedApp } {
  const app = options.app ?? simulatedApp();
  return {
    app,
    storage: fileStorage(options.dir),
    crypto: nodeCrypto,
    compression: nodeCompression,
    device: options.device ?? { platform: 'android', os: 'Android 14 (API 34)' },
    lifecycle: app.lifecycle,
    errors: app.errors,
    fetch: options.fetch ?? nodeFetch(),
    // Node's clock starts with the process, as an app's start does.
    sinceAppStartMs: () => performance.now(),
    memoryMb: () => process.memoryUsage().rss / (1024 * 1024),
    afterFirstFrame: (callback) => void setImmediate(callback),
  };
}
