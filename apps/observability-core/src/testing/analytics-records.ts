// Hand-built ingest records for the user, session, tracking and feedback tests (not demo data):
// a few users with sessions across platforms and versions, every channel filled, timestamps
// unique so orderings are unambiguous. Deterministic (seeded).

export interface LogIn {
  timestamp: string;
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
  message: string;
  source: 'backend' | 'device';
  platform?: string;
  app_version?: string;
  user_id?: string;
  session_id?: string;
}
export interface CrashIn {
  event_id: string;
  timestamp: string;
  error_type: string;
  message: string;
  frames: { function: string; file: string; line?: number; in_app?: boolean }[];
  breadcrumbs: { timestamp: string; category: string; message: string }[];
  signature: string;
  platform: string;
  app_version: string;
  device_os: string;
  user_id?: string;
  session_id?: string;
}
export interface EventIn {
  timestamp: string;
  event_name: string;
  user_id: string;
  session_id?: string;
  platform?: string;
  app_version?: string;
  properties?: Record<string, unknown>;
}
export interface FeedbackIn {
  feedback_id: string;
  timestamp: string;
  user_id: string;
  session_id?: string;
  message: string;
  rating?: number;
  platform?: string;
  app_version?: string;
}
export interface SessionIn {
  session_id: string;
  user_id: string;
  started_at: string;
  ended_at?: string;
  status: 'ok' | 'crashed' | 'anr' | 'abnormal';
  platform: string;
  app_version: string;
}
export interface Records {
  logs: LogIn[];
  crashes: CrashIn[];
  events: EventIn[];
  feedback: FeedbackIn[];
  sessions: SessionIn[];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EVENT_NAMES = ['app_open', 'view_item', 'add_to_cart', 'checkout', 'purchase', 'search'];
const PLATFORMS = ['ios', 'android', 'web'];
const VERSIONS = ['1.0.0', '1.1.0', '2.0.0'];
const PROPERTY_VALUES = ['pro', 'free', '50% off', 'a_b', 'say "hi"', 'C:\\temp', 'plain'];

/**
 * `users` users with 1-3 sessions each. Events span `days` days back (some beyond a 14-day
 * window, one an hour ahead of now); marker text goes into every message so another project's
 * copy can be told apart.
 */
export function buildRecords(opts: {
  seed: number;
  now: number;
  users: number;
  days: number;
  marker?: string;
}): Records {
  const rnd = mulberry32(opts.seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const used = new Set<number>();
  /** A unique millisecond in [from, to) ms before now. */
  const time = (fromAgo: number, toAgo: number) => {
    for (;;) {
      const t = opts.now - Math.floor(fromAgo + rnd() * (toAgo - fromAgo));
      if (!used.has(t)) {
        used.add(t);
        return t;
      }
    }
  };
  const iso = (t: number) => new Date(t).toISOString();
  const mark = opts.marker ? `${opts.marker} ` : '';
  const out: Records = { logs: [], crashes: [], events: [], feedback: [], sessions: [] };
  let seq = 0;

  for (let u = 0; u < opts.users; u++) {
    const user = `user_${u}`;
    const sessionCount = 1 + (u % 3);
    for (let s = 0; s < sessionCount; s++) {
      const session = `sess_${u}_${s}`;
      const platform = pick(PLATFORMS);
      const version = pick(VERSIONS);
      const start = time(2 * HOUR, opts.days * DAY);
      const open = u === 0 && s === 0; // one session still running: no end reported
      out.sessions.push({
        session_id: session,
        user_id: user,
        started_at: iso(start),
        ...(open ? {} : { ended_at: iso(start + HOUR) }),
        status: pick(['ok', 'ok', 'crashed', 'anr', 'abnormal'] as const),
        platform,
        app_version: version,
      });
      const inSession = () => time(opts.now - start - HOUR + 1, opts.now - start);
      const logCount = 3 + Math.floor(rnd() * 10);
      for (let i = 0; i < logCount; i++)
        out.logs.push({
          timestamp: iso(inSession()),
          level: pick(['INFO', 'WARN', 'ERROR'] as const),
          message: `${mark}log ${seq++} of ${session}`,
          source: pick(['backend', 'device'] as const),
          platform,
          app_version: version,
          user_id: user,
          session_id: session,
        });
      const eventCount = 2 + Math.floor(rnd() * 12);
      for (let i = 0; i < eventCount; i++)
        out.events.push({
          timestamp: iso(inSession()),
          event_name: pick(EVENT_NAMES),
          user_id: user,
          session_id: session,
          platform,
          app_version: version,
          properties: { plan: pick(PROPERTY_VALUES), step: i, note: `${mark}n${seq++}` },
        });
      if (rnd() < 0.6) {
        const t = inSession();
        out.crashes.push({
          event_id: `crash_${seq++}`,
          timestamp: iso(t),
          error_type: pick(['NullPointerException', 'SIGSEGV', 'TypeError']),
          message: `${mark}boom in ${session}`,
          frames: [{ function: 'main', file: 'app.ts', line: 3, in_app: true }],
          breadcrumbs: [{ timestamp: iso(t - 1000), category: 'nav', message: 'opened cart' }],
          signature: (0x1000000000000000n + BigInt(u * 7 + s)).toString(16),
          platform,
          app_version: version,
          device_os: `${platform} ${1 + (u % 5)}`,
          user_id: user,
          session_id: session,
        });
      }
      if (rnd() < 0.7)
        out.feedback.push({
          feedback_id: `fb_${seq++}`,
          timestamp: iso(inSession()),
          user_id: user,
          session_id: session,
          message: `${mark}${pick(['Love it', 'Checkout is SLOW', 'crash on 50% discount', 'file_name missing'])}`,
          ...(rnd() < 0.5 ? { rating: Math.floor(rnd() * 6) } : {}),
          platform,
          app_version: version,
        });
    }
    // Traces outside a session: feedback without one, an event with no platform or version.
    out.feedback.push({
      feedback_id: `fb_${seq++}`,
      timestamp: iso(time(HOUR, opts.days * DAY)),
      user_id: user,
      message: `${mark}general note`,
    });
    out.events.push({
      timestamp: iso(time(HOUR, opts.days * DAY)),
      event_name: 'push_received',
      user_id: user,
    });
  }
  // Around the window edges of track.stats: an hour ahead of now (outside), exactly now (inside).
  out.events.push({ timestamp: iso(opts.now + HOUR), event_name: 'future_event', user_id: 'user_0' });
  out.events.push({ timestamp: iso(opts.now), event_name: 'now_event', user_id: 'user_1' });
  return out;
}
