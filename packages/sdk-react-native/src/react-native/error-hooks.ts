import type { ErrorHooks } from '../platform';

/** How long a fatal crash's report may take before React Native's own handler ends the app. */
export const FATAL_WAIT_MS = 2_000;

type GlobalHandler = (error: unknown, isFatal?: boolean) => void;

/** React Native's global `ErrorUtils` (set up by its InitializeCore). */
interface ErrorUtilsLike {
  getGlobalHandler(): GlobalHandler;
  setGlobalHandler(handler: GlobalHandler): void;
}

/** The Hermes engine's `HermesInternal`, what it offers for unhandled rejections. */
interface HermesLike {
  enablePromiseRejectionTracker?(options: {
    allRejections: boolean;
    onUnhandled: (id: number, rejection: unknown) => void;
    onHandled: (id: number) => void;
  }): void;
}

const globals = globalThis as { ErrorUtils?: ErrorUtilsLike; HermesInternal?: HermesLike; __DEV__?: boolean };

/**
 * Uncaught errors through `ErrorUtils.setGlobalHandler` (the previous handler still runs: after a
 * fatal error it shows the red box or ends the app, so it runs once the SDK wrote and tried to send
 * the report, at most FATAL_WAIT_MS later), and unhandled promise rejections through Hermes's
 * rejection tracker. In development builds React Native's own tracker (the LogBox warning) is left
 * in place, so rejections are reported from release builds; JavaScriptCore apps report none.
 */
export function reactNativeErrorHooks(): ErrorHooks {
  return {
    onUncaught(handler) {
      const errorUtils = globals.ErrorUtils;
      if (!errorUtils) return () => undefined;
      const previous = errorUtils.getGlobalHandler();
      const ours: GlobalHandler = (error, isFatal) => {
        const fatal = isFatal === true;
        let handled: Promise<void>;
        try {
          handled = handler(error, fatal);
        } catch {
          handled = Promise.resolve();
        }
        if (!fatal) return previous(error, isFatal);
        let timer: ReturnType<typeof setTimeout> | undefined;
        void Promise.race([
          handled,
          new Promise<void>((resolve) => (timer = setTimeout(() => resolve(), FATAL_WAIT_MS))),
        ]).then(() => {
          clearTimeout(timer);
          previous(error, isFatal);
        });
      };
      errorUtils.setGlobalHandler(ours);
      return () => {
        if (errorUtils.getGlobalHandler() === ours) errorUtils.setGlobalHandler(previous);
      };
    },
    onUnhandledRejection(handler) {
      const hermes = globals.HermesInternal;
      if (globals.__DEV__ || typeof hermes?.enablePromiseRejectionTracker !== 'function')
        return () => undefined;
      // A tracker cannot be taken back: it stops forwarding instead.
      let active = true;
      hermes.enablePromiseRejectionTracker({
        allRejections: true,
        onUnhandled: (_id, rejection) => {
          if (active) handler(rejection);
        },
        onHandled: () => undefined,
      });
      return () => {
        active = false;
      };
    },
  };
}
