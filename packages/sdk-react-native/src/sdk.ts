import { cleanId } from './clean-records';
import type { LogLevel } from './log-files';
import type { MobilePlatform } from './platform';
import { watchApp } from './sdk-app-state';
import { crashHandler } from './sdk-crashes';
import { instrumentNetwork } from './sdk-network';
import { buildParts, type MobileParts } from './sdk-parts';
import { recordApi } from './sdk-records';
import { createReporter } from './sdk-reporter';
import { type SdkStart, startSdk } from './sdk-start';
import type { MobileSdk, MobileSdkOptions, SdkStats } from './sdk-types';
import { describeThrown } from './stack-frames';

export type { MobileSdk, MobileSdkOptions, SdkError, SdkStats } from './sdk-types';

function statsOf({ exporter, reporter, breadcrumbs, files, outbox, recall }: MobileParts): SdkStats {
  return {
    exporter: exporter.stats(),
    invalid: reporter.counts.invalid,
    earlyDropped: reporter.counts.earlyDropped,
    breadcrumbsDropped: breadcrumbs.dropped,
    logLinesDropped: files.droppedLines,
    reportsPending: outbox.pending,
    reportsDropped: outbox.dropped,
    uploadsPending: recall?.pending ?? 0,
    uploadsDone: recall?.uploaded ?? 0,
    uploadsDropped: recall?.dropped ?? 0,
  };
}

/** Sends what waits (telemetry, reports, uploads) once the SDK has started. Never rejects. */
function flusher(parts: MobileParts, start: SdkStart): () => Promise<void> {
  return async () => {
    try {
      await start.ready;
      await parts.files.flush();
      await start.settled();
      await Promise.all([parts.exporter.flush(), parts.outbox.drain(), parts.recall?.run()]);
    } catch (err) {
      parts.reporter.report({ reason: 'internal', message: `flush: ${describeThrown(err).message}` });
    }
  };
}

/**
 * The SDK on a platform (React Native's in `init`, Node's in tests): tracing of fetch and
 * XMLHttpRequest, crashes with breadcrumbs, sessions, metrics, events, feedback and the device log
 * files that recall asks for. Configuration errors throw here, at once; after that nothing the SDK
 * does throws into the app.
 */
export function createMobileSdk(options: MobileSdkOptions, platform: MobilePlatform): MobileSdk {
  const reporter = createReporter(options.onError);
  const { guard, report } = reporter;
  const initAt = Date.now();
  const parts = buildParts(options, platform, reporter);
  const { breadcrumbs, files, sessions, who, recall } = parts;
  const start = startSdk(parts, initAt);
  const undo = instrumentNetwork(parts);
  const onCrash = crashHandler(parts, start);
  undo.push(platform.errors.onUncaught(onCrash));
  undo.push(platform.errors.onUnhandledRejection((reason) => void onCrash(reason, false)));
  const records = recordApi(parts, start);
  const app = watchApp(parts, start, records);
  undo.push(app.undo);
  const flush = flusher(parts, start);

  return {
    tracer: parts.tracer,
    ready: start.ready,
    deviceId: () => who.deviceId,
    sessionId: () => sessions.id,
    setUser: guard((id: string | undefined) => {
      who.userId = cleanId(id);
      start.whenStarted(() => void start.inSessions(() => sessions.userChanged()));
    }),
    log: guard((level: LogLevel, message: string, fields?: Record<string, unknown>, tag?: string) => {
      const now = Date.now();
      files.write(level, String(message), fields, tag, now);
      breadcrumbs.add(tag ? `log.${tag}` : 'log', String(message), level.toLowerCase(), now);
    }),
    breadcrumb: guard((category: string, message: string, level?: string) =>
      breadcrumbs.add(String(category), String(message), level),
    ),
    navigation: guard((screen: string) => {
      breadcrumbs.add('navigation', String(screen));
      files.write('INFO', `screen ${screen}`, undefined, 'navigation');
    }),
    track: guard(records.track),
    metric: guard(
      (name: string, value: number, more?: { unit?: string; attributes?: Record<string, unknown> }) =>
        records.metric(name, value, more?.unit, more?.attributes),
    ),
    feedback: guard(records.feedback),
    captureError: guard((error: unknown) => void onCrash(error, false)),
    appReady: guard(app.appReady),
    async checkRecalls() {
      if (!recall) return;
      try {
        await start.ready;
        await start.pollRecalls();
      } catch (err) {
        report({ reason: 'internal', message: `recall: ${describeThrown(err).message}` });
      }
    },
    flush,
    stats: () => statsOf(parts),
    async shutdown() {
      for (const put of undo.splice(0)) {
        try {
          put();
        } catch {
          // Put back what can be.
        }
      }
      app.stopSampling();
      await flush();
      await parts.exporter.shutdown();
      parts.outbox.stop();
      recall?.stop();
    },
  };
}
