import type { Random } from './random';
import type { DemoBatch, DemoMetric } from './records';
import type { SessionSummary } from './session-story';

const MINUTE = 60_000;

/** The release whose image cache never evicts: memory grows steadily in some of its sessions. */
export const LEAKY_RELEASE = '2.4.0';
/** Share of the leaky release's sessions that leak (the others never open the image-heavy feed). */
export const LEAK_SHARE = 0.3;

const iso = (ms: number) => new Date(ms).toISOString();
const round1 = (x: number) => Math.round(x * 10) / 10;

/**
 * Performance samples of each session: `app_start_ms` at launch (the cold start the launch line
 * reports), `memory_mb` every 30 s and `fps` every minute, at least 3 memory samples per session.
 * Memory is flat with a little noise, except in leaking sessions, where it climbs 3 to 8 MB per
 * minute and frames drop as the heap fills.
 */
export function writeSessionMetrics(
  random: Random,
  summaries: readonly SessionSummary[],
  out: DemoBatch,
): void {
  for (const s of summaries) {
    const { session } = s;
    const sample = (atMs: number, name: DemoMetric['name'], value: number, unit: DemoMetric['unit']) =>
      out.metrics.push({
        timestamp: iso(atMs),
        name,
        value,
        unit,
        platform: session.platform,
        app_version: session.app_version,
        session_id: session.session_id,
        user_id: session.user_id,
      });
    sample(s.startMs + s.coldStartMs, 'app_start_ms', s.coldStartMs, 'ms');
    const leaks = session.app_version === LEAKY_RELEASE && random.chance(LEAK_SHARE);
    const slopePerMinute = leaks ? 3 + random.next() * 5 : 0;
    const baseline = 140 + random.int(0, 80);
    const from = s.startMs + s.coldStartMs;
    const until = Math.max(s.lastMs, from + 90_000);
    for (let at = from; at <= until; at += 30_000) {
      const minutes = (at - from) / MINUTE;
      sample(at, 'memory_mb', round1(baseline + slopePerMinute * minutes + (random.next() - 0.5) * 4), 'MB');
      if ((at - from) % MINUTE === 0) {
        const drop = Math.min(25, (slopePerMinute * minutes) / 4);
        sample(at, 'fps', round1(Math.min(60, 52 + random.next() * 8 - drop)), 'fps');
      }
    }
  }
}
