import type { AppVisibility, ErrorHooks, Lifecycle } from '../platform';

/** How long a fatal crash's report may take before the app dies (React Native's adapter waits as long). */
export const FATAL_WAIT_MS = 2_000;

export interface SimulatedApp {
  lifecycle: Lifecycle;
  errors: ErrorHooks;
  /** The app goes to the background or comes back. */
  setVisibility(state: AppVisibility): void;
  /**
   * An uncaught error, as React Native's ErrorUtils hands it to the global handler: resolves once
   * the SDK is done with it (at most FATAL_WAIT_MS for a fatal one, after which the app would die).
   */
  uncaught(error: unknown, fatal: boolean): Promise<void>;
  /** A promise rejected with nobody to handle it. */
  unhandledRejection(reason: unknown): void;
}

/**
 * An app's lifecycle and its uncaught errors, driven by a test or a Node program: what AppState and
 * ErrorUtils are on a device.
 */
export function simulatedApp(initial: AppVisibility = 'active'): SimulatedApp {
  let state = initial;
  const visibility = new Set<(state: AppVisibility) => void>();
  const uncaught = new Set<(error: unknown, fatal: boolean) => Promise<void>>();
  const rejections = new Set<(reason: unknown) => void>();
  return {
    lifecycle: {
      current: () => state,
      onChange(listener) {
        visibility.add(listener);
        return () => visibility.delete(listener);
      },
    },
    errors: {
      onUncaught(handler) {
        uncaught.add(handler);
        return () => uncaught.delete(handler);
      },
      onUnhandledRejection(handler) {
        rejections.add(handler);
        return () => rejections.delete(handler);
      },
    },
    setVisibility(next) {
      if (next === state) return;
      state = next;
      for (const listener of visibility) listener(next);
    },
    async uncaught(error, fatal) {
      const handled = Promise.all([...uncaught].map((handler) => handler(error, fatal)));
      if (!fatal) return void (await handled);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([handled, new Promise((resolve) => (timer = setTimeout(resolve, FATAL_WAIT_MS)))]);
      clearTimeout(timer);
    },
    unhandledRejection(reason) {
      for (const handler of rejections) handler(reason);
    },
  };
}
