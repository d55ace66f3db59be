import { DEVICE_OS, PLATFORMS } from './catalog';
import { writeCrowd } from './crowd';
import { writeUserEvents } from './events';
import { DEMO_EXPERIMENTS } from './experiments';
import { writeUserFeedback } from './feedback';
import { writeSessionMetrics } from './performance';
import { createRandom, deriveSeed, type Random } from './random';
import type { DemoBatch, DemoExperiment, DemoLog, DemoUser } from './records';
import { type SessionSummary, writeSession } from './session-story';
import { writeShopFunnel } from './shop-funnel';
import { writeSessionTraces } from './traces';

export interface DemoOptions {
  seed: number;
  /**
   * Scales users, sessions and logs roughly linearly; 1 is 40 storied users (a few thousand log
   * lines) and a crowd of 6,000 users (about a thousand sessions a day, a few hundred crashes).
   */
  size: number;
  /** Epoch ms. Nothing is generated after it. Pass it explicitly for reproducible output. */
  now: number;
  /** Data spreads over the last `days` days, denser towards now. */
  days: number;
}

export interface DemoProject extends DemoBatch {
  options: DemoOptions;
  /** The A/B test definitions (`experiments` ingest records); send them once per project. */
  experiments: DemoExperiment[];
}

const USERS_PER_SIZE = 40;
const DAY = 24 * 60 * 60_000;

export function userCount(size: number): number {
  return Math.max(1, Math.round(USERS_PER_SIZE * size));
}

/** Age in ms of an activity: skewed towards 0 so recent days carry more volume. */
function recentAge(random: Random, windowMs: number): number {
  return windowMs * random.next() ** 1.7;
}

function makeUser(random: Random, index: number, nowMs: number, windowMs: number): DemoUser {
  const platform = random.weighted(PLATFORMS);
  return {
    user_id: `user_${index.toString().padStart(5, '0')}_${random.hex(4)}`,
    device_id: `dev_${random.hex(12)}`,
    platform,
    device_os: random.pick(DEVICE_OS[platform]),
    first_seen: new Date(nowMs - windowMs * random.next()).toISOString(),
  };
}

function emptyBatch(): DemoBatch {
  return { users: [], sessions: [], logs: [], crashes: [], events: [], feedback: [], metrics: [], spans: [] };
}

/**
 * Independent random streams per user: the story (users, sessions, logs) keeps its stream, and
 * each other record family draws from its own, so extending one family leaves the others as
 * they were for the same seed.
 */
const STREAMS = { crashes: 1, events: 2, feedback: 3, shop: 4, performance: 5, traces: 6, crowd: 7 } as const;

/**
 * Everything one storied user did, then the crowd users who stand behind them (crowd.ts). Depends
 * only on (seed, index, now, days): any user can be made alone.
 */
function writeUser(options: DemoOptions, index: number, out: DemoBatch): void {
  const userSeed = deriveSeed(options.seed, index);
  const random = createRandom(userSeed);
  const crashRandom = createRandom(deriveSeed(userSeed, STREAMS.crashes));
  const context = { nowMs: options.now, days: options.days };
  const windowMs = options.days * DAY;
  const user = makeUser(random, index, options.now, windowMs);
  out.users.push(user);
  const sessions = random.weighted([
    [1, 3],
    [2, 3],
    [3, 2],
    [5, 1],
    [8, 1],
  ] as const);
  const summaries: SessionSummary[] = [];
  for (let s = 0; s < sessions; s++) {
    // Leave room for the whole story before `now` (a session lasts at most ~20 minutes).
    const startMs = Math.floor(options.now - 25 * 60_000 - recentAge(random, windowMs - 25 * 60_000));
    summaries.push(writeSession(random, crashRandom, user, `sess_${random.hex(16)}`, startMs, context, out));
  }
  writeBackgroundJobs(random, options, out);
  const campaign = writeUserEvents(createRandom(deriveSeed(userSeed, STREAMS.events)), summaries, out);
  writeShopFunnel(createRandom(deriveSeed(userSeed, STREAMS.shop)), summaries, campaign, out);
  writeUserFeedback(createRandom(deriveSeed(userSeed, STREAMS.feedback)), summaries, options.now, out);
  writeSessionMetrics(createRandom(deriveSeed(userSeed, STREAMS.performance)), summaries, out);
  writeSessionTraces(createRandom(deriveSeed(userSeed, STREAMS.traces)), summaries, options.now, out);
  writeCrowd(createRandom(deriveSeed(userSeed, STREAMS.crowd)), context, index, out);
}

/** Backend lines with no user: scheduled jobs, a slow query with its trace. */
function writeBackgroundJobs(random: Random, options: DemoOptions, out: DemoBatch): void {
  const count = random.int(2, 8);
  for (let i = 0; i < count; i++) {
    const at = new Date(options.now - recentAge(random, options.days * DAY)).toISOString();
    const line: DemoLog = random.weighted<DemoLog>([
      [
        {
          timestamp: at,
          level: 'INFO',
          source: 'backend',
          message: `cron: cleanup removed ${random.int(0, 500)} expired carts`,
        },
        4,
      ],
      [
        {
          timestamp: at,
          level: 'DEBUG',
          source: 'backend',
          message: `queue depth orders=${random.int(0, 40)} emails=${random.int(0, 90)}`,
        },
        3,
      ],
      [
        {
          timestamp: at,
          level: 'WARN',
          source: 'backend',
          message: `slow query (${random.int(900, 4000)} ms): SELECT * FROM orders WHERE user_id = ? AND status LIKE 'pending%'`,
          trace_id: random.hex(32),
          span_id: random.hex(16),
        },
        2,
      ],
      [
        {
          timestamp: at,
          level: 'ERROR',
          source: 'backend',
          message: 'smtp: 421 4.7.0 try again later (rate_limited)',
        },
        1,
      ],
    ]);
    out.logs.push(line);
  }
}

/**
 * The project in batches of `usersPerBatch` storied users (each with their crowd), for sizes too
 * large to hold at once
 * (benchmarks stream millions of rows through this). Concatenating the batches gives exactly
 * `generateDemoProject`'s output.
 */
export function* iterateDemoBatches(options: DemoOptions, usersPerBatch = 200): Generator<DemoBatch> {
  const users = userCount(options.size);
  let batch = emptyBatch();
  for (let index = 0; index < users; index++) {
    writeUser(options, index, batch);
    if ((index + 1) % usersPerBatch === 0) {
      yield batch;
      batch = emptyBatch();
    }
  }
  if (batch.users.length > 0) yield batch;
}

/** A whole realistic project; same options, same output, byte for byte. */
export function generateDemoProject(options: DemoOptions): DemoProject {
  const all = emptyBatch();
  // One push per record: spreading a batch of a large size into push() overflows the call stack.
  const append = <T>(to: T[], from: T[]) => {
    for (const item of from) to.push(item);
  };
  for (const batch of iterateDemoBatches(options)) {
    append(all.users, batch.users);
    append(all.sessions, batch.sessions);
    append(all.logs, batch.logs);
    append(all.crashes, batch.crashes);
    append(all.events, batch.events);
    append(all.feedback, batch.feedback);
    append(all.metrics, batch.metrics);
    append(all.spans, batch.spans);
  }
  return { options, experiments: DEMO_EXPERIMENTS.map((e) => ({ ...e, variants: [...e.variants] })), ...all };
}
