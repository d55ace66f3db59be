import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { iterateDemoBatches } from '@svc/demo-data';
import { signIngestBody } from '@svc/observability-core';
import type { FloodSpec } from '../flood-process';
import type { LoadResult } from '../load';
import { idleCores, machineCpuTicks } from '../proc-cpu';
import type { Service } from '../services';
import { type Summary, summarize } from '../stats';
import { type Identity, SECRET, startCore, startGateway, startIdentity, tempDir } from './deployment';

// One tenant must not starve the others: project A floods the stack with heavy
// analytics.cohorts calls (days 365, max_day 90: the attack's call) while project B makes point
// lookups (crash.get). B's latency unloaded and during the flood, through the gateway and the
// core as deployed. The gateway's per-token and per-project limits are raised out of the way, so
// the flood reaches the core's scheduler in full: its fairness is what is measured.

export const FAIRNESS_TARGET_RATIO = 2;

export interface FairnessPath {
  /** Where A and B call: the core's internal API, or the gateway's REST API with tokens. */
  path: string;
  unloaded: Summary;
  flooded: Summary;
  /** B's calls that did not answer 200 (the target: none). */
  bFailures: number;
  /** A's answers during the flood, by status. */
  flood: LoadResult;
  /** CPU seconds per process while B looked up under the flood. */
  cpu: Record<string, number>;
  /**
   * Cores the machine left idle meanwhile (every process, ours or not): near 0 is saturation, and
   * B's wait is then the machine's; cores left idle while B waits would be unfairness.
   */
  idleCores: number;
  cores: number;
}

export interface FairnessReport {
  paths: FairnessPath[];
  floodConnections: number;
  notes: string[];
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const HEAVY = JSON.stringify({ days: 365, max_day: 90 });

interface Seeded {
  projectId: string;
  token: string;
}

async function seed(identity: Identity, coreUrl: string, projectId: string, size: number): Promise<Seeded> {
  const { token } = await identity.admin('/tokens', { project_id: projectId });
  const key = await identity.admin('/ingest-keys', { project_id: projectId });
  const now = Date.now();
  for (const batch of iterateDemoBatches({ size, seed: 20261122, days: 30, now }, 10)) {
    const { logs, crashes, sessions, events, feedback } = batch;
    const body = JSON.stringify({ logs, crashes, sessions, events, feedback });
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await fetch(`${coreUrl}/ingest/v1/batch`, {
      method: 'POST',
      headers: {
        ...JSON_HEADERS,
        'x-svc-key': key.key_id!,
        'x-svc-timestamp': String(timestamp),
        'x-svc-signature': signIngestBody(key.secret!, timestamp, body),
      },
      body,
    });
    if (!res.ok) throw new Error(`ingest ${projectId}: ${res.status} ${await res.text()}`);
  }
  return { projectId, token: token! };
}

/** BENCH_CORE_ENV='A=1,B=2': core settings to compare (SVC_CORE_QUERIES_PER_PROJECT, ...). */
function coreEnvFromBench(): Record<string, string> {
  const pairs = (process.env.BENCH_CORE_ENV ?? '').split(',').filter(Boolean);
  return Object.fromEntries(pairs.map((p) => p.split('=') as [string, string]));
}

/** CPU seconds a process has used so far (user + system; Linux clock ticks are 1/100 s). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** A's flood from a child process (flood-process.ts), so that B's client has its event loop to itself. */
function floodFromOwnProcess(spec: FloodSpec): { pid: number; result: Promise<LoadResult> } {
  const script = fileURLToPath(new URL('../flood-process.ts', import.meta.url));
  let pid = 0;
  const result = new Promise<LoadResult>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', script, JSON.stringify(spec)],
      { maxBuffer: 16 * 1024 * 1024, timeout: spec.durationMs + 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`flood process failed: ${err.message} ${stderr.slice(0, 500)}`));
        else resolve(JSON.parse(stdout) as LoadResult);
      },
    );
    pid = child.pid ?? 0;
  });
  return { pid, result };
}

/** B's lookups one after another for `ms`, each answer read; latencies and failures. */
async function lookups(url: string, headers: Record<string, string>, body: string, ms: number) {
  const samples: number[] = [];
  let failures = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const t0 = performance.now();
    const res = await fetch(url, { method: 'POST', headers, body });
    await res.arrayBuffer();
    samples.push(performance.now() - t0);
    if (res.status !== 200) failures++;
  }
  return { samples, failures };
}

export async function benchFairness(
  durationMs: number,
  options: { size?: number; floodConnections?: number } = {},
): Promise<FairnessReport> {
  const size = options.size ?? 1;
  const floodConnections = options.floodConnections ?? 32;
  const dir = tempDir();
  const services: Service[] = [];
  const notes: string[] = [];
  try {
    const identity = await startIdentity(dir.path);
    services.push(identity.service);
    const core = await startCore(dir.path, identity.service.url, coreEnvFromBench());
    services.push(core);
    const gateway = await startGateway(identity.service.url, core.url);
    services.push(gateway);

    const boot = await identity.admin('/bootstrap', {
      org_name: 'Fairness',
      project_name: 'A',
      user_email: 'fair@example.com',
    });
    const other = await identity.admin('/projects', { name: 'B', org_id: boot.org_id });
    const t0 = performance.now();
    const a = await seed(identity, core.url, boot.project_id!, size);
    const b = await seed(identity, core.url, other.project_id!, size);
    notes.push(
      `seeded two demo projects (size ${size}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    const search = await fetch(`${gateway.url}/v1/tools/crash.recent`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${b.token}` },
      body: JSON.stringify({ limit: 1 }),
    });
    const found = (await search.json()) as { items?: { event_id: string }[] };
    const eventId = found.items?.[0]?.event_id;
    if (!eventId) throw new Error(`no crash in project B: ${JSON.stringify(found).slice(0, 300)}`);
    const lookupBody = JSON.stringify({ event_id: eventId });
    const heavy = await fetch(`${gateway.url}/v1/tools/analytics.cohorts`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${a.token}` },
      body: HEAVY,
    });
    const heavyBytes = (await heavy.arrayBuffer()).byteLength;
    notes.push(
      `A's call: analytics.cohorts ${HEAVY}, ${(heavyBytes / 1024).toFixed(0)} KiB per answer; ` +
        `${floodConnections} connections back to back. B's call: crash.get, one after another`,
    );

    const internal = { ...JSON_HEADERS, 'x-internal-secret': SECRET };
    const bearer = (token: string) => ({ ...JSON_HEADERS, authorization: `Bearer ${token}` });
    const paths: FairnessPath[] = [];
    const measure = async (
      path: string,
      url: (project: string, tool: string) => string,
      headersA: Record<string, string>,
      headersB: Record<string, string>,
    ) => {
      const lookupUrl = url(b.projectId, 'crash.get');
      await lookups(lookupUrl, headersB, lookupBody, 1000);
      const quiet = await lookups(lookupUrl, headersB, lookupBody, durationMs);
      // A floods while B keeps looking up; B starts once the flood is under way.
      const flooding = floodFromOwnProcess({
        url: url(a.projectId, 'analytics.cohorts'),
        connections: floodConnections,
        durationMs: durationMs + 2000,
        headers: headersA,
        body: HEAVY,
        expected: [200, 429],
      });
      await new Promise((r) => setTimeout(r, 1000));
      const measured = [
        ...services.map((s) => ({ name: s.name, pid: s.pid })),
        { name: "A's client", pid: flooding.pid },
      ];
      const cpu0 = measured.map((m) => cpuSeconds(m.pid));
      const machine0 = machineCpuTicks();
      const busy = await lookups(lookupUrl, headersB, lookupBody, durationMs);
      const machine1 = machineCpuTicks();
      const cpu = Object.fromEntries(measured.map((m, i) => [m.name, cpuSeconds(m.pid) - cpu0[i]!]));
      const flood = await flooding.result;
      paths.push({
        path,
        unloaded: summarize(quiet.samples),
        flooded: summarize(busy.samples),
        bFailures: quiet.failures + busy.failures,
        flood,
        cpu,
        idleCores: idleCores(machine0, machine1),
        cores: machine1.cores,
      });
    };
    await measure(
      'core internal API',
      (project, tool) => `${core.url}/internal/v1/projects/${project}/tools/${tool}`,
      internal,
      internal,
    );
    await measure(
      'gateway REST',
      (_project, tool) => `${gateway.url}/v1/tools/${tool}`,
      bearer(a.token),
      bearer(b.token),
    );
    return { paths, floodConnections, notes };
  } finally {
    for (const s of services.reverse()) await s.stop().catch(() => {});
    dir.remove();
  }
}
