/** A timer that does not keep a Node process alive (React Native's timers have no unref). */
export function unrefTimer<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
