// The React Native and Expo SDK. Crypto needs crypto.getRandomValues, which Hermes lacks: the
// polyfill is imported first, before anything makes an id.
import 'react-native-get-random-values';
import type { MobilePlatform } from './platform';
import { reactNativePlatform } from './react-native/platform';
import { createMobileSdk, type MobileSdk, type MobileSdkOptions } from './sdk';

export type { LogFileLimits, LogLevel } from './log-files';
export { type NavigationRefLike, trackNavigation } from './navigation';
export type {
  Compression,
  DeviceInfo,
  ErrorHooks,
  HttpFetch,
  KeyValueStorage,
  Lifecycle,
  MobilePlatform,
  SdkCrypto,
} from './platform';
export type { PropagateTo } from './propagation';
export { asyncStorage } from './react-native/async-storage';
export { fflateCompression } from './react-native/fflate-compression';
export { nobleCrypto } from './react-native/noble-crypto';
export { reactNativePlatform } from './react-native/platform';
export { traceHeaders, withSpan } from './scope';
export { createMobileSdk, type MobileSdk, type MobileSdkOptions, type SdkError, type SdkStats } from './sdk';

/**
 * One call at the app's start (index.js, before the app registers): crashes, sessions, startup and
 * memory metrics, fetch and XMLHttpRequest traced, the device log kept for recall. `platform`
 * replaces parts of the React Native platform (a native memory reading, another storage).
 */
export function init(options: MobileSdkOptions, platform: Partial<MobilePlatform> = {}): MobileSdk {
  // A second call (a fast refresh re-running index.js) gets the running SDK: instrumenting fetch
  // twice would make two spans of every request.
  if (running) return running;
  const sdk = createMobileSdk(options, reactNativePlatform(platform));
  running = {
    ...sdk,
    async shutdown() {
      running = undefined;
      await sdk.shutdown();
    },
  };
  return running;
}

let running: MobileSdk | undefined;
