// What React Native's `performance` tells of the app (its web performance API, Hermes):
// `rnStartupTiming.startTime` is when the native app started, on the same clock as
// `performance.now()`; `memory.usedJSHeapSize` is the Hermes heap in use.

interface RnPerformance {
  now(): number;
  rnStartupTiming?: { startTime?: number | null };
  memory?: { usedJSHeapSize?: number | null };
}

const performanceOf = () => (globalThis as { performance?: RnPerformance }).performance;

/** Milliseconds since the native app started; undefined where React Native does not say. */
export function sinceAppStartMs(): number | undefined {
  try {
    const performance = performanceOf();
    const start = performance?.rnStartupTiming?.startTime;
    return typeof start === 'number' && performance ? performance.now() - start : undefined;
  } catch {
    return undefined;
  }
}

/** The JavaScript heap in use, in MB (Hermes); undefined on engines that do not say. */
export function jsHeapMb(): number | undefined {
  try {
    const used = performanceOf()?.memory?.usedJSHeapSize;
    return typeof used === 'number' && used > 0 ? used / (1024 * 1024) : undefined;
  } catch {
    return undefined;
  }
}
