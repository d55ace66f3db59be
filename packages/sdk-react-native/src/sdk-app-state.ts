import type { AppVisibility } from './platform';
import type { MobileParts } from './sdk-parts';
import type { RecordApi } from './sdk-records';
import type { SdkStart } from './sdk-start';
import { unrefTimer } from './timers';

const DEFAULT_SAMPLE_INTERVAL_MS = 30_000;
/** A startup longer than this is not a startup (a debugger, a paused device): not reported. */
const MAX_APP_START_MS = 10 * 60_000;

export interface AppState {
  /** Measures app_start_ms (once). */
  appReady(): void;
  stopSampling(): void;
  /** Stops following the app's visibility. */
  undo: () => void;
}

/**
 * What the SDK measures of the app itself: its start (at the first frame, or at `appReady()`),
 * memory_mb while in the foreground (with a session heartbeat), and the sessions and flushes that
 * follow the app in and out of the foreground.
 */
export function watchApp(parts: MobileParts, start: SdkStart, records: RecordApi): AppState {
  const { platform, options, sessions, breadcrumbs, reporter } = parts;
  let appStartReported = false;
  function appReady() {
    if (appStartReported) return;
    appStartReported = true;
    const ms = platform.sinceAppStartMs();
    if (ms !== undefined && Number.isFinite(ms) && ms >= 0 && ms <= MAX_APP_START_MS)
      records.metric('app_start_ms', Math.round(ms), 'ms');
  }
  if (options.appStart !== 'manual') platform.afterFirstFrame(reporter.guard(appReady));

  const sampleEvery = options.sampleIntervalMs ?? DEFAULT_SAMPLE_INTERVAL_MS;
  let sampler: ReturnType<typeof setInterval> | undefined;
  const sample = reporter.guard(() => {
    const mb = platform.memoryMb();
    if (mb !== undefined && Number.isFinite(mb) && mb >= 0)
      records.metric('memory_mb', Math.round(mb * 10) / 10, 'MB');
    start.whenStarted(() => void start.inSessions(() => sessions.heartbeat(Date.now())));
  });
  const startSampling = () => {
    if (sampleEvery <= 0 || sampler) return;
    sample();
    sampler = unrefTimer(setInterval(sample, sampleEvery));
  };
  const stopSampling = () => {
    if (sampler) clearInterval(sampler);
    sampler = undefined;
  };
  if (platform.lifecycle.current() === 'active') startSampling();

  const onVisibility = reporter.guard((state: AppVisibility) => {
    const now = Date.now();
    start.whenStarted(() => {
      if (state === 'background') {
        stopSampling();
        breadcrumbs.add('app', 'background');
        void start.inSessions(() => sessions.background(now));
        void parts.files.flush();
        void parts.exporter.flush();
      } else {
        breadcrumbs.add('app', 'foreground');
        void start.inSessions(() => sessions.foreground(now));
        startSampling();
        void start.pollRecalls();
      }
    });
  });
  return { appReady, stopSampling, undo: platform.lifecycle.onChange(onVisibility) };
}
