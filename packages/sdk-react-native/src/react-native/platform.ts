import type { HttpFetch, MobilePlatform } from '../platform';
import { appStateLifecycle } from './app-state';
import { asyncStorage } from './async-storage';
import { reactNativeDevice } from './device';
import { reactNativeErrorHooks } from './error-hooks';
import { fflateCompression } from './fflate-compression';
import { nobleCrypto } from './noble-crypto';
import { jsHeapMb, sinceAppStartMs } from './performance';

/** A body as React Native's fetch sends bytes (whatwg-fetch hands an ArrayBuffer to XMLHttpRequest). */
const bodyOf = (body: string | Uint8Array | undefined): RequestInit['body'] =>
  body === undefined || typeof body === 'string'
    ? body
    : // A DataView would become a Blob, which React Native cannot make from bytes.
      (body.buffer.slice(
        body.byteOffset,
        body.byteOffset + body.byteLength,
      ) as unknown as RequestInit['body']);

/** The app's fetch, taken now (before the SDK instruments it) for the SDK's own requests. */
export function appFetch(original: typeof fetch = globalThis.fetch): HttpFetch {
  return (url, init) => {
    const body = bodyOf(init.body);
    return original(url, {
      method: init.method,
      headers: init.headers,
      ...(body === undefined ? {} : { body }),
      signal: init.signal,
    });
  };
}

/**
 * The SDK's platform on a phone: AsyncStorage, noble's HMAC and AES-GCM, fflate's gzip,
 * ErrorUtils and Hermes's rejection tracker, AppState, Platform, and React Native's performance
 * API for the start time and the JS heap. Any part can be replaced (a native memory reading, say).
 */
export function reactNativePlatform(overrides: Partial<MobilePlatform> = {}): MobilePlatform {
  return {
    storage: asyncStorage(),
    crypto: nobleCrypto,
    compression: fflateCompression,
    device: reactNativeDevice(),
    lifecycle: appStateLifecycle(),
    errors: reactNativeErrorHooks(),
    fetch: appFetch(),
    sinceAppStartMs,
    memoryMb: jsHeapMb,
    afterFirstFrame: (callback) => void requestAnimationFrame(() => callback()),
    ...overrides,
  };
}
