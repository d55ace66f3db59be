import { AppState, Platform } from 'react-native';
import { appStateLifecycle } from './app-state';
import { reactNativeDevice } from './device';
import { FATAL_WAIT_MS, reactNativeErrorHooks } from './error-hooks';
import { jsHeapMb, sinceAppStartMs } from './performance';

// The React Native parts of the platform under the react-native preset: ErrorUtils as React
// Native's error-guard polyfill sets it up, AppState and Platform as its jest setup mocks them.

type Handler = (error: unknown, isFatal?: boolean) => void;
const errorUtils = (
  globalThis as unknown as { ErrorUtils: { getGlobalHandler(): Handler; setGlobalHandler(h: Handler): void } }
).ErrorUtils;

describe('uncaught errors through ErrorUtils', () => {
  let previous: jest.Mock;
  beforeEach(() => {
    previous = jest.fn();
    errorUtils.setGlobalHandler(previous);
  });

  it('a fatal error: the report first, then the previous handler (which ends the app)', async () => {
    const order: string[] = [];
    previous.mockImplementation(() => order.push('previous'));
    let finish!: () => void;
    const uninstall = reactNativeErrorHooks().onUncaught(
      (error, fatal) =>
        new Promise<void>((resolve) => {
          order.push(`report ${(error as Error).message} fatal=${fatal}`);
          finish = () => {
            order.push('report written');
            resolve();
          };
        }),
    );
    const boom = new Error('boom');
    errorUtils.getGlobalHandler()(boom, true);
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['report boom fatal=true']);
    finish();
    await new Promise((r) => setTimeout(r, 0));
    expect(order).toEqual(['report boom fatal=true', 'report written', 'previous']);
    expect(previous).toHaveBeenCalledWith(boom, true);
    uninstall();
    expect(errorUtils.getGlobalHandler()).toBe(previous);
  });

  it('a report that does not finish does not keep the app from ending: the previous handler runs after FATAL_WAIT_MS', async () => {
    jest.useFakeTimers();
    try {
      const uninstall = reactNativeErrorHooks().onUncaught(() => new Promise<void>(() => undefined));
      errorUtils.getGlobalHandler()(new Error('stuck'), true);
      await jest.advanceTimersByTimeAsync(FATAL_WAIT_MS - 1);
      expect(previous).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(1);
      expect(previous).toHaveBeenCalledTimes(1);
      uninstall();
    } finally {
      jest.useRealTimers();
    }
  });

  it('a non-fatal error reaches the previous handler at once; a throwing report changes nothing', () => {
    const uninstall = reactNativeErrorHooks().onUncaught(() => {
      throw new Error('the SDK failed');
    });
    const soft = new Error('soft');
    errorUtils.getGlobalHandler()(soft, false);
    expect(previous).toHaveBeenCalledWith(soft, false);
    uninstall();
  });
});

describe('unhandled rejections through Hermes', () => {
  const globals = globalThis as { HermesInternal?: unknown; __DEV__?: boolean };
  afterEach(() => {
    delete globals.HermesInternal;
    globals.__DEV__ = true;
  });

  it("in a release build, Hermes's tracker reports each unhandled rejection", () => {
    globals.__DEV__ = false;
    const enablePromiseRejectionTracker = jest.fn();
    globals.HermesInternal = { enablePromiseRejectionTracker };
    const seen: unknown[] = [];
    const stop = reactNativeErrorHooks().onUnhandledRejection((reason) => seen.push(reason));
    const [[options]] = enablePromiseRejectionTracker.mock.calls;
    expect(options.allRejections).toBe(true);
    options.onUnhandled(1, new Error('lost promise'));
    stop();
    options.onUnhandled(2, new Error('after uninstall'));
    expect(seen).toEqual([new Error('lost promise')]);
  });

  it("in a development build, React Native's own tracker (LogBox) is left in place", () => {
    globals.__DEV__ = true;
    const enablePromiseRejectionTracker = jest.fn();
    globals.HermesInternal = { enablePromiseRejectionTracker };
    reactNativeErrorHooks().onUnhandledRejection(() => undefined);
    expect(enablePromiseRejectionTracker).not.toHaveBeenCalled();
  });
});

describe('AppState', () => {
  const mocked = AppState as unknown as { addEventListener: jest.Mock; currentState: unknown };

  it('background ends the foreground; inactive (the app switcher, a call) is still the foreground', () => {
    mocked.currentState = 'active';
    const lifecycle = appStateLifecycle();
    expect(lifecycle.current()).toBe('active');
    const seen: string[] = [];
    const stop = lifecycle.onChange((state) => seen.push(state));
    const listener = mocked.addEventListener.mock.calls.at(-1)![1] as (state: string) => void;
    for (const state of ['inactive', 'background', 'background', 'active', 'inactive']) listener(state);
    expect(seen).toEqual(['background', 'active']);
    stop();
    expect(mocked.addEventListener.mock.results.at(-1)!.value.remove).toHaveBeenCalled();
  });
});

describe('device and performance', () => {
  it("names the OS as crashes' device_os", () => {
    expect(Platform.OS).toBe('ios');
    expect(reactNativeDevice()).toEqual({ platform: 'ios', os: `iOS ${Platform.Version}` });
  });

  it("reads the start time and the JS heap from React Native's performance API, nothing where it is absent", () => {
    const perf = globalThis.performance as unknown as Record<string, unknown>;
    expect(sinceAppStartMs()).toBeUndefined();
    expect(jsHeapMb()).toBeUndefined();
    const now = (perf.now as () => number)();
    perf.rnStartupTiming = { startTime: now - 1500 };
    perf.memory = { usedJSHeapSize: 64 * 1024 * 1024 };
    try {
      expect(sinceAppStartMs()).toBeGreaterThanOrEqual(1500);
      expect(jsHeapMb()).toBe(64);
    } finally {
      delete perf.rnStartupTiming;
      delete perf.memory;
    }
  });
});
