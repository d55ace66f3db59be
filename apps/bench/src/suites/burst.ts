import { randomUUID } from 'node:crypto';
import { busyHoldings, readGauge } from '@svc/metrics';
import { type SpawnedStack, signedFetch } from '@svc/standalone/testing';
import { type Summary, summarize } from '../stats';

// A burst of large answers from one project, against another org's calls (a hostile run's
// critical finding): project A (the demo project), 2 tokens x 32 concurrent REST calls of
// analytics.cohorts over a year, a day at a time (answers of about 1.7 MB), for one phase; project B,
// of another org, meanwhile reads its own large answer (log.recent of 1,000 entries) and looks one
// crash up, one call after another. Reported: B's success rate and p99 before, during and after A's
// burst, A's answers by status, and whether every holding gauge of the stack returns to 0 after.
// Before the fix, the burst left answer-budget reservations held for good: B's large answers then
// waited out their timeout (504) until a restart, and the core's breaker opened for every tenant.

const BURST_TOKENS = 2;
const BURST_CONCURRENCY = 32;
const BURST_ARGS = { days: 365, max_day: 90, granularity: 'day' };
const VICTIM_LOGS = 1_000;
const REQUEST_TIMEOUT_MS = 60_000;
const IDLE_CEILING_MS = 120_000;

export interface VictimPhase {
  calls: number;
  ok: number;
  statuses: Record<string, number>;
  /** All of B's calls (large and small), in ms. */
  latency: Summary;
  large: Summary;
}

export interface BurstReport {
  before: VictimPhase;
  during: VictimPhase;
  after: VictimPhase;
  attacker: Record<string, number>;
  attackerCalls: number;
  attackerAnswerBytes: number;
  victimAnswerBytes: number;
  /** Holding gauges still above 0 once nothing is in flight (after the ceiling): {} is right. */
  heldAfter: Record<string, number>;
  /** How long after the burst ended every holding gauge read 0 (or the ceiling). */
  idleAfterMs: number;
  /** The answer budget read by name once the ceiling passed (a stack without the holdings index too). */
  budgetAfter: { bytesHeld: number; waiting: number };
}

interface Victim {
  token: string;
  eventId: string;
}

type Admin = (path: string, body: unknown) => Promise<Record<string, string>>;

/** The crash a victim looks up by event id (a point lookup): one web TypeError. */
export function victimCrash(eventId: string, timestamp: string) {
  return {
    event_id: eventId,
    timestamp,
    error_type: 'TypeError',
    message: 'victim crash',
    frames: [{ function: 'checkout', file: 'cart.js', line: 1, in_app: true }],
    breadcrumbs: [],
    platform: 'web',
    app_version: '1.0.0',
    device_os: 'Linux',
  };
}

/** B: a project of its own org, with 1,000 logs of ~600 characters (a large log.recent) and one crash. */
async function victimOf(stack: SpawnedStack, admin: Admin): Promise<Victim> {
  const { org_id } = await admin('orgs', { name: 'bench burst victim org' });
  const { project_id } = await admin('projects', { name: 'bench burst victim', org_id });
  const { token } = await admin('tokens', { project_id });
  const key = await admin('ingest-keys', { project_id });
  const now = Date.now();
  const eventId = `bench-burst-${randomUUID()}`;
  const stored = await signedFetch(
    stack.ready.urls.core,
    '/ingest/v1/batch',
    { key_id: key.key_id!, secret: key.secret! },
    {
      body: JSON.stringify({
        logs: Array.from({ length: VICTIM_LOGS }, (_, i) => ({
          timestamp: new Date(now - i * 1000).toISOString(),
          level: 'INFO',
          message: `victim line ${i} ${'x'.repeat(600)}`,
          source: 'backend',
        })),
        crashes: [victimCrash(eventId, new Date(now).toISOString())],
      }),
    },
  );
  if (stored.status !== 200) throw new Error(`B's data: ${stored.status} ${await stored.text()}`);
  return { token: token!, eventId };
}

async function call(stack: SpawnedStack, token: string, tool: string, args: unknown) {
  const t0 = performance.now();
  const res = await fetch(new URL(`/v1/tools/${tool}`, stack.ready.urls.gateway), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(args),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  }).catch(() => undefined);
  const text = (await res?.text().catch(() => '')) ?? '';
  return { status: res?.status ?? 0, ms: performance.now() - t0, bytes: text.length };
}

/** B's calls, one after another, until `until` settles: its large answer and a crash lookup in turn. */
async function victimPhase(stack: SpawnedStack, b: Victim, until: Promise<unknown>): Promise<VictimPhase> {
  let done = false;
  void until.then(() => {
    done = true;
  });
  const all: number[] = [];
  const large: number[] = [];
  const statuses: Record<string, number> = {};
  let ok = 0;
  while (!done) {
    for (const [tool, args] of [
      ['log.recent', { limit: VICTIM_LOGS }],
      ['crash.get', { event_id: b.eventId }],
    ] as const) {
      const r = await call(stack, b.token, tool, args);
      all.push(r.ms);
      if (tool === 'log.recent') large.push(r.ms);
      statuses[String(r.status)] = (statuses[String(r.status)] ?? 0) + 1;
      if (r.status === 200) ok++;
    }
  }
  return { calls: all.length, ok, statuses, latency: summarize(all), large: summarize(large) };
}

export async function benchBurst(stack: SpawnedStack, admin: Admin, phaseMs: number): Promise<BurstReport> {
  const b = await victimOf(stack, admin);
  const attackerProject = stack.ready.project_id;
  const tokens: string[] = [];
  for (let i = 0; i < BURST_TOKENS; i++)
    tokens.push((await admin('tokens', { project_id: attackerProject })).token!);
  const sizes = {
    attacker: (await call(stack, tokens[0]!, 'analytics.cohorts', BURST_ARGS)).bytes,
    victim: (await call(stack, b.token, 'log.recent', { limit: VICTIM_LOGS })).bytes,
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const before = await victimPhase(stack, b, sleep(phaseMs / 2));

  const attacker: Record<string, number> = {};
  let attackerCalls = 0;
  const burstEnds = Date.now() + phaseMs;
  const burst = Promise.all(
    tokens.flatMap((token) =>
      Array.from({ length: BURST_CONCURRENCY }, async () => {
        while (Date.now() < burstEnds) {
          const r = await call(stack, token, 'analytics.cohorts', BURST_ARGS);
          attackerCalls++;
          attacker[String(r.status)] = (attacker[String(r.status)] ?? 0) + 1;
        }
      }),
    ),
  );
  const during = await victimPhase(stack, b, burst);

  // Nothing of A's is in flight now: every holding gauge must read 0 again, by itself.
  const idleStarted = performance.now();
  let heldAfter = busyHoldings(await (await fetch(stack.ready.urls.metrics)).text());
  while (Object.keys(heldAfter).length > 0 && performance.now() - idleStarted < IDLE_CEILING_MS) {
    await sleep(200);
    heldAfter = busyHoldings(await (await fetch(stack.ready.urls.metrics)).text());
  }
  const idleAfterMs = performance.now() - idleStarted;
  const text = await (await fetch(stack.ready.urls.metrics)).text();
  const budgetAfter = {
    bytesHeld: readGauge(text, 'svc_answer_budget_bytes_held') ?? Number.NaN,
    waiting: readGauge(text, 'svc_answer_budget_waiting') ?? Number.NaN,
  };
  const after = await victimPhase(stack, b, sleep(phaseMs / 2));
  return {
    before,
    during,
    after,
    attacker,
    attackerCalls,
    attackerAnswerBytes: sizes.attacker,
    victimAnswerBytes: sizes.victim,
    heldAfter,
    idleAfterMs,
    budgetAfter,
  };
}
