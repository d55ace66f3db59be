// What the SDK needs of the device it runs on, as small interfaces: React Native implements them
// with AsyncStorage, noble's AES-GCM and HMAC, fflate, ErrorUtils and AppState (src/react-native),
// Node with files, node:crypto and zlib (src/node), so the same SDK logic runs in both.

/** Key-value storage that outlives the process (AsyncStorage on a device, files in Node). */
export interface KeyValueStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  getAllKeys(): Promise<readonly string[]>;
}

/** HMAC-SHA256 signs requests; AES-256-GCM encrypts recall files. */
export interface SdkCrypto {
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** The ciphertext followed by the 16-byte tag. */
  aes256GcmEncrypt(key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array): Uint8Array | Promise<Uint8Array>;
  randomBytes(length: number): Uint8Array;
}

export interface Compression {
  gzip(data: Uint8Array): Promise<Uint8Array>;
}

/** `active`: in the foreground; `background`: not seen (the OS may end the process any time). */
export type AppVisibility = 'active' | 'background';

export interface Lifecycle {
  current(): AppVisibility;
  /** Returns the function that stops listening. */
  onChange(listener: (state: AppVisibility) => void): () => void;
}

export interface ErrorHooks {
  /**
   * Calls `handler` for every uncaught error. For a fatal one the platform waits (bounded) for the
   * promise before the app's previous handler runs, which may end the process.
   */
  onUncaught(handler: (error: unknown, fatal: boolean) => Promise<void>): () => void;
  onUnhandledRejection(handler: (reason: unknown) => void): () => void;
}

export interface DeviceInfo {
  /** `ios`, `android` (what crashes, sessions and metrics carry as `platform`). */
  platform: string;
  /** The OS and its version, e.g. `iOS 17.4`, `Android 14 (API 34)` (a crash's `device_os`). */
  os: string;
}

/** What the SDK's own requests get back. */
export interface HttpAnswer {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** How the SDK sends its own requests (the fetch of the platform, taken before instrumentation). */
export type HttpFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | Uint8Array; signal: AbortSignal },
) => Promise<HttpAnswer>;

export interface MobilePlatform {
  storage: KeyValueStorage;
  crypto: SdkCrypto;
  compression: Compression;
  device: DeviceInfo;
  lifecycle: Lifecycle;
  errors: ErrorHooks;
  fetch: HttpFetch;
  /** Milliseconds since the app's process started, where the platform says; else undefined. */
  sinceAppStartMs(): number | undefined;
  /** The app's memory in MB now, where the platform exposes it; else undefined. */
  memoryMb(): number | undefined;
  /** Runs `callback` once the app has drawn its next frame. */
  afterFirstFrame(callback: () => void): void;
}
