import { createAsyncStorage } from '@react-native-async-storage/async-storage';
import type { KeyValueStorage } from '../platform';

/** What the SDK uses of an AsyncStorage (v3's `createAsyncStorage` database, or the legacy one). */
export interface AsyncStorageLike {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
  getAllKeys(): Promise<readonly string[]>;
}

/** The database the SDK keeps its state in: its own, so the app's `clear()` and keys stay apart. */
export const SDK_DATABASE = 'svc-sdk';

/**
 * The SDK's storage on a device: AsyncStorage (v3: a database of its own, on SQLite; no 6 MB cap
 * as v1's Android store had). Log chunks of 16 KiB stay far below a row's size limits.
 */
export function asyncStorage(storage: AsyncStorageLike = createAsyncStorage(SDK_DATABASE)): KeyValueStorage {
  return {
    getItem: (key) => storage.getItem(key),
    setItem: (key, value) => storage.setItem(key, value),
    removeItem: (key) => storage.removeItem(key),
    getAllKeys: () => storage.getAllKeys(),
  };
}
