import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  type Answer,
  type HostileTarget,
  prepareWorstInputs,
  type SpawnedStack,
  signedFetch,
  spawnStack,
  WORST_INPUTS,
} from '@svc/standalone/testing';
import { type Summary, summarize } from '../stats';
import { type BurstReport, benchBurst, victimCrash } from './burst';

// Hostile load on the one-process stack (`pnpm start`, every service on one event loop): project A
// sends the worst inputs found so far (the recall bombs, OTLP nesting, 100k-span bodies, lone
// surrogates, poison values, deep properties, gzip bombs at the console), one after another, while
// project B (the demo project) looks crashes up through the gateway and ingests valid batches.
// Reported: B's lookups (p50/p99) and ingest success unloaded and under A's inputs, A's answers by
// status, the longest event-loop hold, and the stack's peak RSS.

export interface HostilePhase {
  lookups: Summary;
  /** B's lookups that did not answer 200, by status (0: no answer in time). */
  lookupStatuses: Record<string, number>;
  /** The gateway's /healthz, probed every 100 ms: a stalled event loop shows here first. */
  health: Summary;
  lookupFailures: number;
  ingestOk: number;
  ingestTotal: number;
}

export interface HostileReport {
  unloaded: HostilePhase;
  hostile: HostilePhase;
  /** A's inputs: name -> statuses seen (or the error a request ended in). */
  attacker: { name: string; answers: string[]; ms: number }[];
  maxHoldMs: number;
  longHolds: number;
  peakRssMb: number;
  /** One project's burst of large answers against another org's calls (burst.ts). */
  burst: BurstReport;
  notes: string[];
}

const REQUEST_TIMEOUT_MS = 30_000;

interface Victim {
  token: string;
  key: { key_id: string; secret: string };
  eventId: string;
}

async function victimOf(stack: SpawnedStack): Promise<Victim> {
  const { urls, token, project_id } = stack.ready;
  const admin = (path: string, body: unknown) =>
    fetch(new URL(`/internal/v1/admin${path}`, urls.identity), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': stack.internalSecret },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Record<string, string>>);
  const key = await admin('/ingest-keys', { project_id });
  // B's own crash, the one it looks up: a point lookup by event id.
  const eventId = `bench-victim-${randomUUID()}`;
  const ts = new Date().toISOString();
  const stored = await signedFetch(urls.core, '/ingest/v1/batch', key as Victim['key'], {
    body: JSON.stringify({ crashes: [victimCrash(eventId, ts)] }),
  });
  if (stored.status !== 200) throw new Error(`B's crash: ${stored.status} ${await stored.text()}`);
  return { token: token!, key: { key_id: key.key_id!, secret: key.secret! }, eventId };
}

async function victimLoad(stack: SpawnedStack, b: Victim, until: Promise<unknown>): Promise<HostilePhase> {
  let done = false;
  void until.then(() => {
    done = true;
  });
  const latencies: number[] = [];
  let lookupFailures = 0;
  const lookupStatuses: Record<string, number> = {};
  let ingestOk = 0;
  let ingestTotal = 0;
  const lookups = (async () => {
    while (!done) {
      const t0 = performance.now();
      const res = await fetch(new URL('/v1/tools/crash.get', stack.ready.urls.gateway), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${b.token}` },
        body: JSON.stringify({ event_id: b.eventId }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).catch(() => undefined);
      await res?.text();
      latencies.push(performance.now() - t0);
      if (res?.status !== 200) {
        lookupFailures++;
        const status = String(res?.status ?? 0);
        lookupStatuses[status] = (lookupStatuses[status] ?? 0) + 1;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const healthLatencies: number[] = [];
  const health = (async () => {
    while (!done) {
      const t0 = performance.now();
      const res = await fetch(new URL('/healthz', stack.ready.urls.gateway), {
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      }).catch(() => undefined);
      await res?.text();
      healthLatencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const ingest = (async () => {
    while (!done) {
      const ts = new Date().toISOString();
      const res = await signedFetch(stack.ready.urls.core, '/ingest/v1/batch', b.key, {
        body: JSON.stringify({
          logs: [{ timestamp: ts, level: 'INFO', message: randomUUID(), source: 'backend' }],
          events: [{ timestamp: ts, event_name: 'bench_victim', user_id: 'victim' }],
        }),
      }).catch(() => undefined);
      await res?.text();
      ingestTotal++;
      if (res?.status === 200) ingestOk++;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  await Promise.all([lookups, ingest, health]);
  return {
    lookups: summarize(latencies),
    lookupStatuses,
    health: summarize(healthLatencies),
    lookupFailures,
    ingestOk,
    ingestTotal,
  };
}

async function scrapeHolds(stack: SpawnedStack): Promise<{ max: number; long: number }> {
  const text = await (await fetch(stack.ready.urls.metrics)).text().catch(() => '');
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    max: value('svc_event_loop_hold_max_seconds') * 1000,
    long: value('svc_event_loop_long_holds_total'),
  };
}

/** The stack process's peak resident set (VmHWM), in MB. */
function peakRssMb(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

// The gateway's per-token and per-project rate limits are raised out of the way: B's lookups are
// a measuring loop, not a client the limits are for, and A's tool calls are part of its attack.
const spawnHostileStack = () =>
  spawnStack({
    env: {
      SVC_DEMO_SIZE: '0.2',
      SVC_RATE_LIMIT_PER_MINUTE: '1000000',
      SVC_PROJECT_RATE_LIMIT_PER_MINUTE: '1000000',
    },
    timeoutMs: 600_000,
  });

function adminOf(stack: SpawnedStack) {
  const adminUrl = new URL('/internal/v1/admin/', stack.ready.urls.identity);
  return (path: string, body: unknown) =>
    fetch(new URL(path, adminUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-secret': stack.internalSecret },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Record<string, string>>);
}

/** The burst of large answers alone, on a stack of its own. */
export async function benchBurstAlone(phaseMs: number): Promise<BurstReport> {
  const stack = await spawnHostileStack();
  try {
    return await benchBurst(stack, adminOf(stack), phaseMs);
  } finally {
    await stack.dispose();
  }
}

export async function benchHostile(phaseMs: number): Promise<HostileReport> {
  const stack = await spawnHostileStack();
  try {
    const b = await victimOf(stack);
    const admin = adminOf(stack);
    const { project_id } = await admin('projects', { name: 'bench attacker' });
    const { token } = await admin('tokens', { project_id });
    const key = await admin('ingest-keys', { project_id });
    const target: HostileTarget = {
      urls: stack.ready.urls,
      key: { key_id: key.key_id!, secret: key.secret! },
      token: token!,
    };

    // Built before B's clients start: building one holds this process's event loop for seconds.
    await prepareWorstInputs();
    const unloaded = await victimLoad(stack, b, new Promise((r) => setTimeout(r, phaseMs)));
    const holdsBefore = await scrapeHolds(stack);
    const attacker: HostileReport['attacker'] = [];
    const attack = (async () => {
      const until = Date.now() + phaseMs;
      do {
        for (const input of WORST_INPUTS) {
          if (Date.now() > until) break;
          const t0 = performance.now();
          const answers = await input
            .send(target)
            .then((list: Answer[]) => list.map((a) => String(a.status)))
            .catch((err: Error) => [err.name]);
          attacker.push({ name: input.name, answers, ms: performance.now() - t0 });
        }
      } while (Date.now() < until);
    })();
    const hostile = await victimLoad(stack, b, attack);
    const holdsAfter = await scrapeHolds(stack);
    const burst = await benchBurst(stack, admin, phaseMs);
    return {
      burst,
      unloaded,
      hostile,
      attacker,
      maxHoldMs: holdsAfter.max,
      longHolds: holdsAfter.long - holdsBefore.long,
      peakRssMb: peakRssMb(stack.pid),
      notes: [],
    };
  } finally {
    await stack.dispose();
  }
}
