import { existsSync, readFileSync } from 'node:fs';
import { type LoopHold, monitorLoopHolds } from './loop-hold';
import { createPromMetrics } from './metrics';

const linux = existsSync('/proc/thread-self/schedstat');
const onLinux = linux ? it : it.skip;

/** The main thread's CPU time in ms, read the way the monitor reads it. */
const threadCpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6;

/** Keeps the event loop busy until the main thread has run for `ms` of CPU (not wall) time. */
function burnCpu(ms: number): void {
  const until = threadCpuMs() + ms;
  let x = 0;
  while (threadCpuMs() < until) for (let i = 0; i < 10_000; i++) x += i;
  if (x < 0) throw new Error('unreachable');
}

const gauge = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);

const turns = (n: number) => new Promise((resolve) => setTimeout(resolve, n * 15));

describe('monitorLoopHolds', () => {
  onLinux('measures a hold as the CPU the main thread spent without yielding', async () => {
    const seen: LoopHold[] = [];
    const metrics = createPromMetrics({ defaultMetrics: false, prefix: 't_' });
    const warnings: [Record<string, unknown>, string][] = [];
    const logger = {
      warn: (fields: Record<string, unknown>, message: string) => warnings.push([fields, message]),
    };
    const monitor = monitorLoopHolds({ metrics, logger, onHold: (h) => seen.push(h) });
    try {
      expect(monitor.measure).toBe('cpu');
      await turns(3);
      burnCpu(120);
      await turns(3);
      expect(monitor.maxHoldMs()).toBeGreaterThanOrEqual(120);
      expect(seen).toHaveLength(1);
      expect(seen[0]!.holdMs).toBeGreaterThanOrEqual(120);
      expect(seen[0]!.wallMs).toBeGreaterThanOrEqual(seen[0]!.holdMs - 1);
      expect(warnings).toEqual([
        [
          { hold_ms: Math.round(seen[0]!.holdMs), wall_ms: Math.round(seen[0]!.wallMs), measure: 'cpu' },
          'event loop held: one piece of work ran without yielding',
        ],
      ]);
      const text = await metrics.render();
      expect(text).toContain('t_event_loop_long_holds_total 1');
      expect(gauge(text, 't_event_loop_hold_max_seconds')).toBeGreaterThanOrEqual(0.12);
      expect(text).toContain('t_event_loop_hold_seconds_bucket{le="0.1"} 0');
    } finally {
      monitor.stop();
    }
  });

  onLinux('does not count time the thread spent waiting (off CPU) as a hold', async () => {
    const monitor = monitorLoopHolds();
    try {
      await turns(2);
      // The thread sleeps 150 ms without running: a late timer, no work kept anyone waiting.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 150);
      await turns(3);
      expect(monitor.longHolds()).toEqual([]);
      expect(monitor.maxHoldMs()).toBeLessThan(50);
    } finally {
      monitor.stop();
    }
  });

  onLinux('reset forgets the holds seen so far; the max gauge keeps the process-wide maximum', async () => {
    const metrics = createPromMetrics({ defaultMetrics: false, prefix: 'r_' });
    const monitor = monitorLoopHolds({ metrics, reportOverMs: 60 });
    try {
      await turns(2);
      burnCpu(70);
      await turns(2);
      expect(monitor.longHolds()).toHaveLength(1);
      monitor.reset();
      expect(monitor.longHolds()).toEqual([]);
      expect(monitor.maxHoldMs()).toBe(0);
      expect(gauge(await metrics.render(), 'r_event_loop_hold_max_seconds')).toBeGreaterThanOrEqual(0.07);
    } finally {
      monitor.stop();
    }
  });
});
