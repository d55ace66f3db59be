import type { Random } from './random';
import type { DemoBatch, DemoFeedback } from './records';
import type { SessionSummary } from './session-story';

// In-app feedback, written by users about what happened to them: crashes and freezes give
// angry low ratings naming the screen, slow screens give lukewarm ones, the rest is praise
// and feature requests (often without a rating).

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const CRASH_COMPLAINTS = [
  (screen: string) => `App crashed on the ${screen} screen, lost everything I had in my cart`,
  (screen: string) => `Crashes every time I open ${screen}. Please fix!!`,
  (screen: string) => `It just closed itself while I was on ${screen}`,
];
const FREEZE_COMPLAINTS = [
  (screen: string) => `The app froze on ${screen} and I had to force quit`,
  (screen: string) => `${screen} hangs for several seconds, then nothing works`,
];
const SLOW_COMPLAINTS = [
  (screen: string) => `${screen} is really slow and laggy when scrolling`,
  (screen: string) => `Why does ${screen} take so long to load?`,
];
const PRAISE = ['Love the new design, checkout is so fast now', 'Great app, found exactly what I needed'];
const REQUESTS = [
  'Please add dark mode',
  'Would be nice to filter search results by size',
  'Can I pay with PayPal?',
];

export function writeUserFeedback(
  random: Random,
  sessions: SessionSummary[],
  nowMs: number,
  out: DemoBatch,
): void {
  for (const summary of sessions) {
    const { session, user } = summary;
    const give = (atMs: number, message: string, rating: number | undefined) => {
      const feedback: DemoFeedback = {
        feedback_id: `fb_${random.hex(16)}`,
        timestamp: iso(Math.min(nowMs, atMs)),
        user_id: user.user_id,
        session_id: session.session_id,
        message,
        platform: session.platform,
        app_version: session.app_version,
      };
      if (rating !== undefined) feedback.rating = rating;
      out.feedback.push(feedback);
    };
    const rated = (low: number, high: number) => (random.chance(0.8) ? random.int(low, high) : undefined);
    if (summary.crash) {
      // Written after relaunching the app, about the session that crashed (and nothing else).
      if (!random.chance(0.45)) continue;
      const at = summary.crash.atMs + random.int(1, 20) * MINUTE;
      give(at, random.pick(CRASH_COMPLAINTS)(summary.crash.issue.screen), rated(1, 2));
    } else if (summary.anrScreen && random.chance(0.4)) {
      give(
        summary.lastMs + random.int(1, 10) * MINUTE,
        random.pick(FREEZE_COMPLAINTS)(summary.anrScreen),
        rated(1, 2),
      );
    } else if (summary.slowScreens.length > 0 && random.chance(0.25)) {
      give(summary.lastMs, random.pick(SLOW_COMPLAINTS)(random.pick(summary.slowScreens)), rated(2, 3));
    } else if (session.status === 'ok' && random.chance(0.03)) {
      if (random.chance(0.5)) give(summary.lastMs, random.pick(PRAISE), rated(4, 5));
      else give(summary.lastMs, random.pick(REQUESTS), random.chance(0.3) ? random.int(3, 5) : undefined);
    }
  }
}
