import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type LoadResult, load } from '../load';
import type { Service } from '../services';
import { type Identity, seedProject, startCore, startGateway } from './deployment';

// What self-tracing costs (README, "The stack traces itself"), measured in the gateway suite after
// its own figures: each path untraced and traced, taken in turns (off, on, then on, off, ...) so
// the VM's drift falls on both alike, and the median of the rounds compared. Traced: every trace
// kept (SVC_SELF_TRACE_PROJECT, no sampling), and with SVC_SELF_TRACE_SAMPLE_RATE 0.1.

const PROJECT = 'prj_bench_stack';

export interface SelfTraceSetup {
  identity: Identity;
  /** The suite's data dir (the traced cores get their own chDB under it). */
  dir: string;
  trivialUrl: string;
  /** The suite's untraced gateways and core. */
  gatewayToTrivial: Service;
  gatewayToCore: Service;
  token: string;
}

interface Side {
  name: string;
  url: string;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The traced twins, run in turns with the untraced ones; answers the notes of the report. */
export async function benchSelfTrace(
  setup: SelfTraceSetup,
  durationMs: number,
  keep: <T extends Service>(s: T) => T,
  rounds = 3,
  connections = 16,
): Promise<string[]> {
  const { identity } = setup;
  const traced = async (name: string, env: Record<string, string>) => {
    const dir = join(setup.dir, name);
    mkdirSync(dir);
    const core = keep(await startCore(dir, identity.service.url, env));
    await seedProject(identity, core);
    return {
      core,
      gateway: keep(await startGateway(identity.service.url, core.url, env)),
    };
  };
  const all = { SVC_SELF_TRACE_PROJECT: PROJECT };
  const tenth = { ...all, SVC_SELF_TRACE_SAMPLE_RATE: '0.1' };
  const trivialTraced = keep(await startGateway(identity.service.url, setup.trivialUrl, all));
  const stack = await traced('traced-core', all);
  const sampled = await traced('sampled-core', tenth);

  const comparisons: { what: string; off: Side; on: Side[] }[] = [
    {
      // The gateway's own cost: its spans go to the trivial backend, which takes and drops them.
      what: 'gateway REST -> trivial backend',
      off: { name: 'off', url: setup.gatewayToTrivial.url },
      on: [{ name: 'on', url: trivialTraced.url }],
    },
    {
      // The whole cost: a traced gateway and a traced core, which stores both services' spans.
      what: 'gateway REST -> core, log.recent',
      off: { name: 'off', url: setup.gatewayToCore.url },
      on: [
        { name: 'on', url: stack.gateway.url },
        { name: 'on, rate 0.1', url: sampled.gateway.url },
      ],
    },
  ];
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${setup.token}` };
  const notes: string[] = [];
  for (const { what, off, on } of comparisons) {
    const results = new Map<string, LoadResult[]>();
    const sides = [off, ...on];
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const result = await load(`${side.url}/v1/tools/log.recent`, {
          connections,
          durationMs,
          request: () => ({ headers, body: '{"limit":1}' }),
        });
        results.set(side.name, [...(results.get(side.name) ?? []), result]);
      }
    }
    const figures = (name: string) => {
      const runs = results.get(name)!;
      return {
        rps: median(runs.map((r) => r.requestsPerSecond)),
        p50: median(runs.map((r) => r.latency.p50)),
        p99: median(runs.map((r) => r.latency.p99)),
        errors: runs.reduce((n, r) => n + r.errors, 0),
      };
    };
    const base = figures(off.name);
    for (const side of on) {
      const f = figures(side.name);
      notes.push(
        `self-tracing ${side.name}, ${what} (${connections} connections, median of ${rounds} rounds in turns): ` +
          `${f.rps.toFixed(0)} vs ${base.rps.toFixed(0)} req/s off (${((100 * f.rps) / base.rps).toFixed(0)}%), ` +
          `p50 ${f.p50.toFixed(2)} vs ${base.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} vs ${base.p99.toFixed(2)} ms, ` +
          `errors ${f.errors + base.errors}`,
      );
    }
  }
  notes.push(
    `self-tracing peak RSS: gateway -> trivial ${trivialTraced.peakRssMb().toFixed(0)} MB, ` +
      `gateway -> core ${stack.gateway.peakRssMb().toFixed(0)} MB, core ${stack.core.peakRssMb().toFixed(0)} MB`,
  );
  return notes;
}
