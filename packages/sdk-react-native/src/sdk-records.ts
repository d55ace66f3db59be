import { newTraceId } from '@svc/sdk-core';
import { checkProperties, cleanAttributes, metricValueProblem, nameProblem } from './clean-records';
import type { MobileParts } from './sdk-parts';
import type { SdkStart } from './sdk-start';
import type { MobileSdk } from './sdk-types';

/** The records an app makes through the SDK: metrics, events, feedback; checked, then queued. */
export interface RecordApi {
  metric(name: string, value: number, unit?: string, attributes?: Record<string, unknown>): void;
  track: MobileSdk['track'];
  feedback: MobileSdk['feedback'];
}

export function recordApi(parts: MobileParts, start: SdkStart): RecordApi {
  const { exporter, sessions, who, breadcrumbs, reporter } = parts;
  const { invalid } = reporter;
  const common = () => ({
    platform: parts.platform.device.platform,
    app_version: parts.options.appVersion,
    ...(sessions.id ? { session_id: sessions.id } : {}),
  });
  return {
    metric(name, value, unit, attributes) {
      const problem = nameProblem(name, 'a metric name') ?? metricValueProblem(value);
      if (problem) return invalid(problem);
      const timestamp = Date.now();
      start.whenStarted(() => {
        const cleaned = cleanAttributes(attributes);
        exporter.addRecord('metrics', {
          timestamp,
          name,
          value,
          ...(unit ? { unit: unit.slice(0, 50) } : {}),
          ...common(),
          user_id: who.user(),
          ...(cleaned ? { attributes: cleaned } : {}),
        });
      });
    },
    track(eventName, properties) {
      const problem = nameProblem(eventName, 'an event name');
      if (problem) return invalid(problem);
      const checked = properties === undefined ? undefined : checkProperties(properties);
      if (checked && 'problem' in checked)
        invalid(`event ${eventName}: ${checked.problem}; sent without them`);
      const timestamp = Date.now();
      breadcrumbs.add('track', eventName);
      start.whenStarted(() =>
        exporter.addRecord('events', {
          timestamp,
          event_name: eventName,
          user_id: who.user(),
          ...common(),
          ...(checked && 'ok' in checked ? { properties: checked.ok } : {}),
        }),
      );
    },
    feedback(message, more) {
      const text = String(message ?? '').slice(0, 16_384);
      if (!text.trim()) return invalid('feedback must not be empty');
      const rating = more?.rating;
      const ratingOk = typeof rating === 'number' && Number.isFinite(rating) && rating >= 0 && rating <= 10;
      if (rating !== undefined && !ratingOk) invalid('a rating must be a number in 0..10; sent without it');
      const timestamp = Date.now();
      start.whenStarted(() =>
        exporter.addRecord('feedback', {
          feedback_id: newTraceId(),
          timestamp,
          user_id: who.user(),
          message: text,
          ...(ratingOk ? { rating } : {}),
          ...common(),
        }),
      );
    },
  };
}
