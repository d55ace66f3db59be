import type { HttpFetch, KeyValueStorage, MobilePlatform } from '../platform';

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

export interface Killable {
  platform: MobilePlatform;
  /**
   * The app's process dies: requests on the wire are cut (the server sees the connection drop
   * mid-body), and from now on no storage operation and no request of this SDK instance ever
   * completes, as nothing runs in a dead process. A new instance on the same storage is the next launch.
   */
  kill(): void;
}

/** `platform` with a kill switch, for tests of what survives an app killed at any point. */
export function killable(platform: MobilePlatform): Killable {
  let dead = false;
  const inFlight = new Set<AbortController>();
  const alive = async <T>(op: () => Promise<T>): Promise<T> => {
    if (dead) return never();
    const result = await op();
    return dead ? never() : result;
  };
  const storage: KeyValueStorage = {
    getItem: (key) => alive(() => platform.storage.getItem(key)),
    setItem: (key, value) => alive(() => platform.storage.setItem(key, value)),
    removeItem: (key) => alive(() => platform.storage.removeItem(key)),
    getAllKeys: () => alive(() => platform.storage.getAllKeys()),
  };
  const fetch: HttpFetch = (url, init) =>
    alive(async () => {
      const cut = new AbortController();
      init.signal.addEventListener('abort', () => cut.abort(), { once: true });
      inFlight.add(cut);
      try {
        return await platform.fetch(url, { ...init, signal: cut.signal });
      } finally {
        inFlight.delete(cut);
      }
    });
  return {
    platform: { ...platform, storage, fetch },
    kill() {
      dead = true;
      for (const cut of inFlight) cut.abort();
    },
  };
}
