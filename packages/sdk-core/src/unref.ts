/** A timer that does not keep a Node process alive (browsers and React Native have no unref). */
export function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

export const sleep = (ms: number) => new Promise<void>((r) => unref(setTimeout(r, ms)));
