import { readFileSync } from 'node:fs';

/** Linux clock ticks a second (USER_HZ): the unit of /proc/<pid>/stat's CPU times. */
const TICKS_PER_SECOND = 100;

/**
 * CPU microseconds a process has used so far, every thread of it (user + system, from
 * /proc/<pid>/stat: the event loop, libuv's pool, V8's helpers, an embedded engine's threads, the
 * threads that already ended). NaN when the process is gone or this is not Linux.
 */
export function processCpuUs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
  } catch {
    return Number.NaN;
  }
}

/** The 1-minute load average (the machine is shared: a figure is read beside it). */
export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}
