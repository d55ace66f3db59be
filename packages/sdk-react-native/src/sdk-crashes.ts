import { newTraceId } from '@svc/sdk-core';
import type { CrashRecord } from './records';
import type { MobileParts } from './sdk-parts';
import type { SdkStart } from './sdk-start';
import { describeThrown, parseStack } from './stack-frames';

function crashOf(parts: MobileParts, error: unknown, now: number): CrashRecord {
  const { device } = parts.platform;
  const thrown = describeThrown(error);
  return {
    event_id: newTraceId(),
    timestamp: now,
    error_type: thrown.type,
    message: thrown.message,
    frames: parseStack(thrown.stack),
    breadcrumbs: parts.breadcrumbs.snapshot(),
    platform: device.platform,
    app_version: parts.options.appVersion,
    device_os: device.os.slice(0, 100) || 'unknown',
    user_id: parts.who.user(),
    ...(parts.sessions.id ? { session_id: parts.sessions.id } : {}),
  };
}

/**
 * What a crash does: written to storage first (with the session, `crashed`, when fatal), then
 * sent; the day's log file queued for upload. The handler resolves when it is sent or the platform
 * stops waiting; it never rejects.
 */
export function crashHandler(
  parts: MobileParts,
  start: SdkStart,
): (error: unknown, fatal: boolean) => Promise<void> {
  const { files, sessions, outbox, exporter, recall, options } = parts;
  return async (error, fatal) => {
    try {
      await start.ready;
      const now = Date.now();
      const crash = crashOf(parts, error, now);
      files.write(
        fatal ? 'FATAL' : 'ERROR',
        `${crash.error_type}: ${crash.message}`,
        { event_id: crash.event_id },
        'crash',
        now,
      );
      const session = fatal ? sessions.crashed(now) : undefined;
      await outbox.enqueue({ crashes: [crash], ...(session ? { sessions: [session] } : {}) });
      // The app ends: what the exporter has not delivered (queued, or on the wire with no answer
      // yet) goes to storage after the crash, each batch under the key its tries carried, and is
      // sent with the reports (now, or at the next start).
      if (fatal) await Promise.all(exporter.takeUndelivered().map((batch) => outbox.keep(batch)));
      await Promise.all([files.flush(), sessions.save()]);
      // A fatal crash only: the app ends, at most one a launch; an app's steady unhandled
      // rejections must not upload its log again and again.
      if (fatal && recall && options.uploadLogAfterCrash !== false)
        await recall.afterCrash(crash.event_id, now, crash.session_id);
      await Promise.all([outbox.drain(), recall?.run()]);
    } catch (err) {
      parts.reporter.report({ reason: 'internal', message: `crash report: ${describeThrown(err).message}` });
    }
  };
}
