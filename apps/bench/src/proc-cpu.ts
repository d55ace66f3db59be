import { readdirSync, readFileSync } from 'node:fs';

/** Linux clock ticks a second (USER_HZ): the unit of /proc/<pid>/stat's CPU times. */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command name (field 3 on), or undefined. */
function statFields(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU microseconds a process has used so far, every thread of it (user + system, from
 * /proc/<pid>/stat: the event loop, libuv's pool, V8's helpers, an embedded engine's threads, the
 * threads that already ended). NaN when the process is gone or this is not Linux.
 */
export function processCpuUs(pid: number): number {
  const fields = statFields(pid);
  // utime and stime: fields 14-15, at 11-12 here.
  return fields ? ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6 : Number.NaN;
}

/**
 * CPU microseconds a server made of processes has used so far: the root process, every live child
 * (PostgreSQL's backends, checkpointer, WAL writer) and the children that ended and were waited
 * for (their time is in the root's cutime and cstime). NaN when the root is gone.
 */
export function processTreeCpuUs(rootPid: number): number {
  const root = statFields(rootPid);
  if (!root) return Number.NaN;
  // utime stime cutime cstime: fields 14-17, at 11-14 here.
  const ticks = (f: string[]) => Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  let total = ticks(root);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    // ppid is field 4, at 1 here.
    if (fields && Number(fields[1]) === rootPid) total += ticks(fields);
  }
  return (total / TICKS_PER_SECOND) * 1e6;
}

/** The 1-minute load average (the machine is shared: a figure is read beside it). */
export function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

/** The machine's CPU time so far, in clock ticks: idle (idle + iowait) and all, over every core. */
export function machineCpuTicks(): { idle: number; total: number; cores: number } {
  try {
    const lines = readFileSync('/proc/stat', 'utf8').split('\n');
    const all = lines[0]!.split(/\s+/).slice(1).map(Number);
    const cores = lines.filter((l) => /^cpu\d/.test(l)).length;
    // user nice system idle iowait irq softirq steal (guest time is counted in user already)
    const total = all.slice(0, 8).reduce((sum, v) => sum + v, 0);
    return { idle: all[3]! + all[4]!, total, cores };
  } catch {
    return { idle: Number.NaN, total: Number.NaN, cores: 0 };
  }
}

/** Cores left idle between two readings of machineCpuTicks (0 to the machine's cores). */
export function idleCores(
  before: ReturnType<typeof machineCpuTicks>,
  after: ReturnType<typeof machineCpuTicks>,
): number {
  const total = after.total - before.total;
  return total > 0 ? ((after.idle - before.idle) / total) * after.cores : Number.NaN;
}
