import { ENDPOINTS, RELEASES, SCREENS, TRICKY_MESSAGES } from './catalog';
import { type CrashIssue, RISK_SDK_RELEASE } from './crash-issues';
import { buildCrash, pickIssue } from './crashes';
import type { Random } from './random';
import type { DemoBatch, DemoBreadcrumb, DemoLog, DemoSession, DemoUser, LogLevel } from './records';
import { drawOutcome } from './session-outcome';

const MINUTE = 60_000;

/** The release a session runs: mostly the newest shipped before it started, sometimes an older one. */
export function versionAt(random: Random, startMs: number, nowMs: number): string {
  const shipped = RELEASES.filter((r) => startMs >= nowMs - r.daysAgo * 24 * 60 * MINUTE);
  const available = shipped.length > 0 ? shipped : [RELEASES[0]!];
  const latest = available[available.length - 1]!;
  if (available.length === 1 || random.chance(0.7)) return latest.version;
  return random.pick(available.slice(0, -1)).version;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What happened in a session, for the generators of events and feedback. */
export interface SessionSummary {
  session: DemoSession;
  user: DemoUser;
  startMs: number;
  /** The last thing that happened (the session's end, or its last line when it vanished). */
  lastMs: number;
  screens: { screen: string; atMs: number }[];
  /** Each request as the device logged it (ended at atMs after ms), with its trace. */
  requests: {
    method: string;
    route: string;
    status: number;
    atMs: number;
    ms: number;
    traceId: string;
    /** The span the backend's own log line was written in (the API gateway's). */
    backendSpanId: string;
  }[];
  /** Cold start as the launch line reports it (the app_start_ms sample). */
  coldStartMs: number;
  slowScreens: string[];
  crash?: { issue: CrashIssue; atMs: number };
  anrScreen?: string;
}

/** The UI element a user touches to fire each request (the `ui` breadcrumbs). */
const UI_TARGETS: Record<string, string> = {
  '/api/v1/feed': 'pull to refresh on FeedList',
  '/api/v1/products/{id}': 'tap on ProductCard',
  '/api/v1/search': 'submit SearchBar',
  '/api/v1/cart/items': 'tap on AddToCartButton',
  '/api/v1/checkout': 'tap on PayButton',
  '/api/v1/profile': 'tap on ProfileTab',
};

export interface SessionContext {
  nowMs: number;
  days: number;
}

/**
 * One session as a story: launch, screens, requests (each with the backend's own log line
 * carrying the trace id), the odd warning or error, and an ending that matches the session's
 * status (a crash leaves a FATAL line linked to the crash by event_id). `random` drives the
 * story; `crashRandom` only the crash details, so the crash model can change without moving logs.
 */
export function writeSession(
  random: Random,
  crashRandom: Random,
  user: DemoUser,
  sessionId: string,
  startMs: number,
  context: SessionContext,
  out: DemoBatch,
): SessionSummary {
  const appVersion = versionAt(random, startMs, context.nowMs);
  // Release health differs between versions through the crash issues each can have (the cart fix
  // removed one, the risk SDK brought one), ANRs (none in the fix release) and cold starts.
  const outcome = drawOutcome(random, {
    platform: user.platform,
    appVersion,
    atMs: startMs,
    nowMs: context.nowMs,
    days: context.days,
  });
  const steps = random.int(6, 28);
  const base = {
    source: 'device' as const,
    platform: user.platform,
    app_version: appVersion,
    user_id: user.user_id,
    session_id: sessionId,
    device_id: user.device_id,
  };
  let t = startMs;
  const tick = (maxMs: number) => {
    t += random.int(200, maxMs);
    return t;
  };
  const breadcrumbs: DemoBreadcrumb[] = [];
  const crumb = (atMs: number, category: string, message: string, level?: string) =>
    breadcrumbs.push(
      level
        ? { timestamp: iso(atMs), category, message, level }
        : { timestamp: iso(atMs), category, message },
    );
  const device = (level: LogLevel, message: string, extra: Partial<DemoLog> = {}, console = true) => {
    out.logs.push({ ...base, timestamp: iso(tick(25_000)), level, message, ...extra });
    // The SDK keeps the app's own console output as breadcrumbs (DEBUG is not recorded).
    if (console && level !== 'DEBUG') crumb(t, 'console', message, level.toLowerCase());
  };
  const coldStartMs = coldStart(random, appVersion);
  const summary: SessionSummary = {
    session: {
      session_id: sessionId,
      user_id: user.user_id,
      started_at: iso(startMs),
      status: outcome,
      platform: user.platform,
      app_version: appVersion,
    },
    user,
    startMs,
    lastMs: startMs,
    screens: [{ screen: 'Home', atMs: startMs }],
    requests: [],
    slowScreens: [],
    coldStartMs,
  };

  device('INFO', `App launched (cold start ${coldStartMs} ms)`, { attributes: { launch: 'cold' } });
  device('DEBUG', `Remote config loaded: ${random.int(8, 40)} feature flags`);
  let screen: string = 'Home';
  for (let i = 0; i < steps; i++) {
    const kind = random.weighted([
      ['screen', 30],
      ['request', 40],
      ['debug', 10],
      ['warn', 10],
      ['error', 5],
      ['tricky', 5],
    ] as const);
    if (kind === 'screen') {
      const from = screen;
      screen = random.pick(SCREENS);
      device('INFO', `Screen view: ${screen}`, {}, false);
      crumb(t, 'navigation', `${from} -> ${screen}`);
      summary.screens.push({ screen, atMs: t });
    } else if (kind === 'request') {
      const at = tick(20_000);
      const request = writeRequest(random, base, iso(at), out);
      crumb(at - 150, 'ui', UI_TARGETS[request.route] ?? 'tap');
      crumb(
        at,
        'http',
        `${request.method} ${request.route} -> ${request.status} (${request.ms} ms)`,
        request.status >= 500 ? 'error' : 'info',
      );
      summary.requests.push({ ...request, atMs: at });
    } else if (kind === 'debug') {
      device('DEBUG', `Rendered ${screen} in ${random.int(4, 40)} ms (${random.int(1, 60)} items)`);
    } else if (kind === 'warn') {
      const message = random.pick([
        `Slow frame: ${random.int(40, 400)} ms on ${screen}`,
        `Retrying request (attempt ${random.int(2, 3)}/3)`,
        `Low memory warning: ${random.int(60, 200)} MB available`,
        'Image cache evicted 120 entries',
      ]);
      if (message.startsWith('Slow frame')) summary.slowScreens.push(screen);
      device('WARN', message);
    } else if (kind === 'error') {
      device(
        'ERROR',
        random.pick([
          `Network timeout after 10000 ms: GET ${random.pick(ENDPOINTS)[1]}`,
          'Payment sheet failed to load: card_declined',
          `Failed to decode response of ${random.pick(ENDPOINTS)[1]}: unexpected end of JSON input`,
        ]),
      );
    } else {
      device('INFO', random.pick(TRICKY_MESSAGES));
    }
  }

  let endedAt: number | undefined = tick(30_000);
  if (outcome === 'crashed') {
    const atMs = t + crashRandom.int(200, 5_000);
    const scene = { platform: user.platform, appVersion, atMs, nowMs: context.nowMs, days: context.days };
    const issue = pickIssue(crashRandom, scene);
    const eventId = crashRandom.hex(32);
    // The last steps before the crash: onto the issue's screen, one touch.
    if (issue.screen !== screen) crumb(atMs - 120, 'navigation', `${screen} -> ${issue.screen}`);
    crumb(atMs - 40, 'ui', `tap on ${issue.touch ?? `${issue.screen}View`}`);
    const ids = { user_id: user.user_id, session_id: sessionId, device_os: user.device_os };
    out.crashes.push(buildCrash(issue, eventId, scene, breadcrumbs.slice(-30), ids));
    out.logs.push({
      ...base,
      timestamp: iso(atMs),
      level: 'FATAL',
      message: `Unhandled exception: ${issue.error_type}: ${issue.message}`,
      event_id: eventId,
    });
    t = atMs;
    device('ERROR', `Crash report ${eventId} queued for upload`, { event_id: eventId });
    summary.crash = { issue, atMs };
    endedAt = t;
  } else if (outcome === 'anr') {
    device('ERROR', `ANR: main thread blocked for ${random.int(5000, 12000)} ms on ${screen}`);
    summary.anrScreen = screen;
    endedAt = t;
  } else if (outcome === 'abnormal') {
    endedAt = undefined; // the app vanished: no goodbye line, no end time
  } else {
    device('INFO', 'App moved to background');
    endedAt = t;
  }
  if (endedAt !== undefined) summary.session.ended_at = iso(endedAt);
  summary.lastMs = t;
  out.sessions.push(summary.session);
  return summary;
}

function writeRequest(
  random: Random,
  base: Omit<DemoLog, 'timestamp' | 'level' | 'message'>,
  timestamp: string,
  out: DemoBatch,
): { method: string; route: string; status: number; ms: number; traceId: string; backendSpanId: string } {
  const [method, route] = random.pick(ENDPOINTS);
  const status = random.weighted([
    [200, 90],
    [404, 3],
    [500, 4],
    [502, 3],
  ] as const);
  const ms =
    status === 200 && route === SLOW_CHECKOUT.route && base.app_version === SLOW_CHECKOUT.version
      ? random.int(1_300, 2_600)
      : random.int(12, status === 200 ? 900 : 10_000);
  const traceId = random.hex(32);
  out.logs.push({
    ...base,
    timestamp,
    level: status >= 500 ? 'WARN' : 'DEBUG',
    message: `${method} ${route} -> ${status} in ${ms} ms`,
    trace_id: traceId,
  });
  // The backend's view of the same request: same trace, its own span, no device fields.
  const backend: DemoLog = {
    timestamp,
    level: status >= 500 ? 'ERROR' : 'INFO',
    message:
      status >= 500
        ? `handled ${method} ${route} status=${status} upstream=payments-service error="connection reset"`
        : `handled ${method} ${route} status=${status} duration_ms=${ms}`,
    source: 'backend',
    user_id: base.user_id!,
    session_id: base.session_id!,
    trace_id: traceId,
    span_id: random.hex(16),
    attributes: { route, method, status: String(status) },
  };
  out.logs.push(backend);
  return { method, route, status, ms, traceId, backendSpanId: backend.span_id! };
}

/**
 * The endpoint that got slower: from this release on, checkout waits for a new fraud check in the
 * payments service (traces.ts puts the time there).
 */
export const SLOW_CHECKOUT = { route: '/api/v1/checkout', version: RISK_SDK_RELEASE } as const;

/** The release whose cold start regressed (the risk SDK initialized on the main thread). */
export const SLOW_START_RELEASE = RISK_SDK_RELEASE;

/**
 * Cold start in ms, one draw: most launches take 0.5 to 1.6 s with a short tail; the regressed
 * release needs 1.4 to 4 s.
 */
export function coldStart(random: Random, appVersion: string): number {
  const r = random.next();
  return appVersion === SLOW_START_RELEASE
    ? Math.round(1_400 + 2_600 * r ** 1.5)
    : Math.round(500 + 1_100 * r ** 2);
}
