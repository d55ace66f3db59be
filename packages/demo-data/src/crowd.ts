import { DEVICE_OS, PLATFORMS, SCREENS } from './catalog';
import { buildCrash, type CrashScene, pickIssue } from './crashes';
import { writeUserEvents } from './events';
import { writeUserFeedback } from './feedback';
import { createRandom, deriveSeed, type Random } from './random';
import type { DemoBatch, DemoBreadcrumb, DemoLog, DemoUser } from './records';
import { drawOutcome } from './session-outcome';
import { coldStart, type SessionContext, type SessionSummary, versionAt } from './session-story';
import { writeShopFunnel } from './shop-funnel';

// The crowd: the shop's many users behind the storied ones (generate.ts), at a shop's volume (about
// a thousand sessions a day at size 1). Their sessions end the same way as the storied ones
// (session-outcome.ts) over the same releases, so crash counts, crash-free rates and ANR rates
// come from realistic numbers of sessions. What a crowd user sends is kept lean, because every
// first start ingests it: each session's record; for a session that crashed, the crash with its
// breadcrumbs and the device's lines up to it (launch, the screens on the way, the FATAL line);
// and, for the share who accepted analytics, the shop events and feedback the storied users send
// too (no logs, samples or traces otherwise).

/** Crowd users per storied user: 40 storied users at size 1 stand for 6,000 users. */
export const CROWD_PER_USER = 150;
/** Share of the crowd that also sends analytics events and feedback (the rest declined tracking). */
export const CROWD_ANALYTICS_SHARE = 0.2;

/** Sessions a crowd user has in 30 days: one-off visitors to regulars (5.25 on average). */
const MONTHLY_SESSIONS: readonly (readonly [number, number])[] = [
  [1, 3],
  [2, 3],
  [4, 2],
  [7, 2],
  [12, 1],
  [20, 1],
];
/** Traffic by UTC weekday (0 = Sunday): people shop more at the weekend. */
const TRAFFIC_BY_WEEKDAY = [1.2, 0.9, 0.9, 0.95, 1.0, 1.1, 1.25] as const;
/** The shop grows: the newest day has 1 + GROWTH times the sessions of the oldest. */
const GROWTH = 0.8;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Sessions last 1 to 18 minutes; each starts early enough to end before `now`. */
const SESSION_MS = { min: MINUTE, max: 18 * MINUTE } as const;
const LEAD_MS = 25 * MINUTE;

const iso = (ms: number) => new Date(ms).toISOString();

/** The crowd users of one storied user index, all from that index's crowd stream. */
export function writeCrowd(random: Random, context: SessionContext, index: number, out: DemoBatch): void {
  for (let c = 0; c < CROWD_PER_USER; c++) writeCrowdUser(random, context, index * CROWD_PER_USER + c, out);
}

function writeCrowdUser(random: Random, context: SessionContext, crowdIndex: number, out: DemoBatch): void {
  const platform = random.weighted(PLATFORMS);
  const user: DemoUser = {
    user_id: `user_${100_000 + crowdIndex}_${random.hex(4)}`,
    device_id: `dev_${random.hex(12)}`,
    platform,
    device_os: random.pick(DEVICE_OS[platform]),
    first_seen: '',
  };
  const monthly = random.weighted(MONTHLY_SESSIONS);
  const count = Math.floor((monthly * context.days) / 30 + random.next());
  const tracked = random.chance(CROWD_ANALYTICS_SHARE);
  const userSeed = Math.floor(random.next() * 2 ** 32);
  if (count === 0) return;
  const starts = Array.from({ length: count }, () => sessionStart(random, context)).sort((a, b) => a - b);
  user.first_seen = iso(starts[0]!);
  const summaries = starts.map((startMs) => writeCrowdSession(random, user, startMs, context, out));
  if (!tracked) return;
  // The same streams (by number) and writers as a storied user's events, funnel and feedback.
  const attribution = writeUserEvents(createRandom(deriveSeed(userSeed, 2)), summaries, out);
  writeShopFunnel(createRandom(deriveSeed(userSeed, 4)), summaries, attribution, out);
  writeUserFeedback(createRandom(deriveSeed(userSeed, 3)), summaries, context.nowMs, out);
}

interface TrafficDay {
  fromMs: number;
  toMs: number;
  /** Cumulative share of the window's sessions up to the end of this day. */
  upTo: number;
}

/** The window's UTC days (cut at its ends) with their share of sessions, worked out once per window. */
let trafficMemo: { key: string; days: TrafficDay[] } | undefined;

function trafficDays(context: SessionContext): TrafficDay[] {
  const key = `${context.nowMs}|${context.days}`;
  if (trafficMemo?.key === key) return trafficMemo.days;
  const from = context.nowMs - context.days * DAY;
  const latest = context.nowMs - LEAD_MS;
  const days: TrafficDay[] = [];
  let total = 0;
  for (let dayStart = Math.floor(from / DAY) * DAY; dayStart < latest; dayStart += DAY) {
    const fromMs = Math.max(from, dayStart);
    const toMs = Math.min(latest, dayStart + DAY);
    const growth = 1 + (GROWTH * ((fromMs + toMs) / 2 - from)) / (latest - from);
    // 1970-01-01 was a Thursday (UTC weekday 4).
    const weekday = TRAFFIC_BY_WEEKDAY[(dayStart / DAY + 4) % 7]!;
    total += (toMs - fromMs) * growth * weekday;
    days.push({ fromMs, toMs, upTo: total });
  }
  for (const day of days) day.upTo /= total;
  trafficMemo = { key, days };
  return days;
}

/**
 * A session start: over the window, growing towards now, busier at the weekend. Always two draws,
 * so a user's later draws do not depend on which days the window's dates fall on.
 */
function sessionStart(random: Random, context: SessionContext): number {
  const days = trafficDays(context);
  const r = random.next();
  let lo = 0;
  let hi = days.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (days[mid]!.upTo < r) lo = mid + 1;
    else hi = mid;
  }
  const day = days[lo]!;
  return Math.floor(day.fromMs + random.next() * (day.toMs - day.fromMs));
}

function writeCrowdSession(
  random: Random,
  user: DemoUser,
  startMs: number,
  context: SessionContext,
  out: DemoBatch,
): SessionSummary {
  const appVersion = versionAt(random, startMs, context.nowMs);
  const sceneAt = (atMs: number): CrashScene => ({
    platform: user.platform,
    appVersion,
    atMs,
    nowMs: context.nowMs,
    days: context.days,
  });
  const status = drawOutcome(random, sceneAt(startMs));
  const durationMs = random.int(SESSION_MS.min, SESSION_MS.max);
  const summary: SessionSummary = {
    session: {
      session_id: `sess_${random.hex(16)}`,
      user_id: user.user_id,
      started_at: iso(startMs),
      status,
      platform: user.platform,
      app_version: appVersion,
    },
    user,
    startMs,
    lastMs: startMs + durationMs,
    screens: [{ screen: 'Home', atMs: startMs }],
    requests: [],
    coldStartMs: 0,
    slowScreens: [],
  };
  if (status === 'crashed') writeCrash(random, summary, durationMs, sceneAt, out);
  else if (status !== 'abnormal') summary.session.ended_at = iso(startMs + durationMs);
  if (status === 'anr') summary.anrScreen = random.pick(SCREENS);
  out.sessions.push(summary.session);
  return summary;
}

/**
 * A crowd session that crashed, as its device reported it: the launch line, the screens on the way
 * to the crash's screen, the touch, the crash (breadcrumbs of all that) and its FATAL line, then
 * the line that queued the report, which ends the session.
 */
function writeCrash(
  random: Random,
  summary: SessionSummary,
  durationMs: number,
  sceneAt: (atMs: number) => CrashScene,
  out: DemoBatch,
): void {
  const { session, user, startMs } = summary;
  const atMs = startMs + random.int(20_000, durationMs);
  const scene = sceneAt(atMs);
  const issue = pickIssue(random, scene);
  const eventId = random.hex(32);
  const base = {
    source: 'device' as const,
    platform: session.platform,
    app_version: session.app_version,
    user_id: user.user_id,
    session_id: session.session_id,
    device_id: user.device_id,
  };
  const line = (atMs: number, level: DemoLog['level'], message: string, extra: Partial<DemoLog> = {}) =>
    out.logs.push({ ...base, timestamp: iso(atMs), level, message, ...extra });
  const breadcrumbs: DemoBreadcrumb[] = [];

  const launchMs = startMs + random.int(300, 3_000);
  const coldStartMs = coldStart(random, session.app_version);
  const launch = `App launched (cold start ${coldStartMs} ms)`;
  line(launchMs, 'INFO', launch, { attributes: { launch: 'cold' } });
  breadcrumbs.push({ timestamp: iso(launchMs), category: 'console', message: launch, level: 'info' });
  const path = Array.from({ length: random.int(1, 3) }, () => random.pick(SCREENS) as string);
  path.push(issue.screen);
  const times = path
    .map(() => launchMs + 1 + Math.floor(random.next() * (atMs - 200 - launchMs - 1)))
    .sort((a, b) => a - b);
  let from = 'Home';
  path.forEach((screen, i) => {
    const at = times[i]!;
    line(at, 'INFO', `Screen view: ${screen}`);
    breadcrumbs.push({ timestamp: iso(at), category: 'navigation', message: `${from} -> ${screen}` });
    summary.screens.push({ screen, atMs: at });
    from = screen;
  });
  breadcrumbs.push({
    timestamp: iso(atMs - 40),
    category: 'ui',
    message: `tap on ${issue.touch ?? `${issue.screen}View`}`,
  });
  const ids = { user_id: user.user_id, session_id: session.session_id, device_os: user.device_os };
  out.crashes.push(buildCrash(issue, eventId, scene, breadcrumbs, ids));
  line(atMs, 'FATAL', `Unhandled exception: ${issue.error_type}: ${issue.message}`, { event_id: eventId });
  const queuedMs = atMs + random.int(200, 2_000);
  line(queuedMs, 'ERROR', `Crash report ${eventId} queued for upload`, { event_id: eventId });
  session.ended_at = iso(queuedMs);
  summary.lastMs = atMs;
  summary.coldStartMs = coldStartMs;
  summary.crash = { issue, atMs };
}
