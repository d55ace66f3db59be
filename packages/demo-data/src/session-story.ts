import { CRASH_KINDS, ENDPOINTS, RELEASES, SCREENS, TRICKY_MESSAGES } from './catalog';
import type { Random } from './random';
import type { DemoBatch, DemoBreadcrumb, DemoLog, DemoSession, DemoUser, LogLevel } from './records';

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

type Outcome = DemoSession['status'];

/**
 * One session as a story: launch, screens, requests (each with the backend's own log line
 * carrying the trace id), the odd warning or error, and an ending that matches the session's
 * status (a crash leaves a FATAL line linked to the crash by event_id).
 */
export function writeSession(
  random: Random,
  user: DemoUser,
  sessionId: string,
  startMs: number,
  nowMs: number,
  out: DemoBatch,
): void {
  const appVersion = versionAt(random, startMs, nowMs);
  const outcome: Outcome = random.weighted<Outcome>([
    ['ok', 93],
    ['crashed', 3.5],
    ['anr', user.platform === 'android' ? 2 : 0.3],
    ['abnormal', 1.5],
  ]);
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
  const device = (level: LogLevel, message: string, extra: Partial<DemoLog> = {}) =>
    out.logs.push({ ...base, timestamp: iso(tick(25_000)), level, message, ...extra });
  const breadcrumbs: DemoBreadcrumb[] = [];

  device('INFO', `App launched (cold start ${random.int(350, 4200)} ms)`, { attributes: { launch: 'cold' } });
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
      screen = random.pick(SCREENS);
      device('INFO', `Screen view: ${screen}`);
      breadcrumbs.push({ timestamp: iso(t), category: 'navigation', message: `to ${screen}` });
    } else if (kind === 'request') {
      writeRequest(random, base, iso(tick(20_000)), out);
      breadcrumbs.push({ timestamp: iso(t), category: 'http', message: 'request finished' });
    } else if (kind === 'debug') {
      device('DEBUG', `Rendered ${screen} in ${random.int(4, 40)} ms (${random.int(1, 60)} items)`);
    } else if (kind === 'warn') {
      device(
        'WARN',
        random.pick([
          `Slow frame: ${random.int(40, 400)} ms on ${screen}`,
          `Retrying request (attempt ${random.int(2, 3)}/3)`,
          `Low memory warning: ${random.int(60, 200)} MB available`,
          'Image cache evicted 120 entries',
        ]),
      );
    } else if (kind === 'error') {
      device(
        'ERROR',
        random.pick([
          `Network timeout after 10000 ms: GET ${random.pick(ENDPOINTS)[1]}`,
          'Payment sheet failed to load: card_declined',
          `Failed to decode response of ${random.pick(ENDPOINTS)[1]}: unexpected end of JSON input`,
        ]),
      );
      breadcrumbs.push({ timestamp: iso(t), category: 'error', message: 'error logged', level: 'error' });
    } else {
      device('INFO', random.pick(TRICKY_MESSAGES));
    }
  }

  let endedAt: string | undefined = iso(tick(30_000));
  if (outcome === 'crashed') {
    const kind = random.pick(CRASH_KINDS[user.platform]);
    const eventId = random.hex(32);
    const crashAt = tick(5_000);
    out.crashes.push({
      event_id: eventId,
      timestamp: iso(crashAt),
      error_type: kind.error_type,
      message: kind.message,
      frames: kind.frames.map((f) => ({ ...f })),
      breadcrumbs: breadcrumbs.slice(-20),
      platform: user.platform,
      app_version: appVersion,
      device_os: user.device_os,
      user_id: user.user_id,
      session_id: sessionId,
    });
    out.logs.push({
      ...base,
      timestamp: iso(crashAt),
      level: 'FATAL',
      message: `Unhandled exception: ${kind.error_type}: ${kind.message}`,
      event_id: eventId,
    });
    device('ERROR', `Crash report ${eventId} queued for upload`, { event_id: eventId });
    endedAt = iso(t);
  } else if (outcome === 'anr') {
    device('ERROR', `ANR: main thread blocked for ${random.int(5000, 12000)} ms on ${screen}`);
    endedAt = iso(t);
  } else if (outcome === 'abnormal') {
    endedAt = undefined; // the app vanished: no goodbye line, no end time
  } else {
    device('INFO', 'App moved to background');
    endedAt = iso(t);
  }
  const session: DemoSession = {
    session_id: sessionId,
    user_id: user.user_id,
    started_at: iso(startMs),
    status: outcome,
    platform: user.platform,
    app_version: appVersion,
  };
  if (endedAt !== undefined) session.ended_at = endedAt;
  out.sessions.push(session);
}

function writeRequest(
  random: Random,
  base: Omit<DemoLog, 'timestamp' | 'level' | 'message'>,
  timestamp: string,
  out: DemoBatch,
): void {
  const [method, route] = random.pick(ENDPOINTS);
  const status = random.weighted([
    [200, 90],
    [404, 3],
    [500, 4],
    [502, 3],
  ] as const);
  const ms = random.int(12, status === 200 ? 900 : 10_000);
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
}
