import { existsSync, readdirSync, readFileSync } from 'node:fs';

// Waits in tests, on progress rather than on the clock. A busy machine (a laptop building, a shared
// CI runner: load 15 on 2 cores) makes a stack start several times slower, never stuck; a fixed
// wall-clock bound fails there although nothing is wrong. So a wait goes on for as long as what it
// waits for visibly works (its processes use CPU, its output grows), gives up on a stall (no CPU
// and no output for STALL_MS), and keeps a generous overall ceiling for a process that works
// without ever getting there (a busy loop).

/** No CPU and no output for this long: stalled, whatever the machine's load. */
export const STALL_MS = 120_000;
/** The overall ceiling of one wait (a stack start), however visibly it progresses. */
export const CEILING_MS = 10 * 60_000;
/**
 * jest's timeout for a beforeAll (or test) that starts a stack: above CEILING_MS with room for the
 * rest of the setup, so a failure shows the wait's own message and the stack's output, never a bare
 * jest timeout cutting a start that was still progressing.
 */
export const STACK_SETUP_TIMEOUT_MS = CEILING_MS + 5 * 60_000;
/**
 * The ceiling of a wait on a condition with no process of its own to watch (state in the test's
 * process, an answer over HTTP): far above what a loaded machine needs, below jest's test timeout.
 */
export const CONDITION_CEILING_MS = 2 * 60_000;
/**
 * CPU time that counts as a step forward. An idle process (timers, health probes) uses a few ms a
 * second and must not look busy for ever; a working one, even given 1/10 of a core, uses this much
 * in a few seconds.
 */
const CPU_STEP_MS = 1000;
const POLL_MS = 200;

export interface ProgressWaitOptions<T> {
  /** What is awaited, for the error message ("standalone ready"). */
  what: string;
  /** The wait ends with the first value other than undefined. */
  check(): T | undefined | Promise<T | undefined>;
  /** The process doing the work: its CPU time and that of its descendants count as progress. */
  pid?: number | undefined;
  /** Its output so far: growth counts as progress, and the text ends the error message. */
  output?: () => string;
  /** A reason to give up now (the process exited), or undefined. */
  gone?: () => string | undefined;
  stallMs?: number;
  ceilingMs?: number;
  /** CPU time that counts as a step forward (CPU_STEP_MS). */
  cpuStepMs?: number;
  /** Between two checks (POLL_MS). */
  pollMs?: number;
}

export class WaitError extends Error {
  override name = 'WaitError';
}

/** Polls `check` until it answers, while the work progresses (see the file's comment). */
export async function waitOnProgress<T>(options: ProgressWaitOptions<T>): Promise<T> {
  const stallMs = options.stallMs ?? STALL_MS;
  const ceilingMs = options.ceilingMs ?? CEILING_MS;
  const cpuStepMs = options.cpuStepMs ?? CPU_STEP_MS;
  const started = Date.now();
  let lastStepAt = started;
  let cpuAtStep = options.pid === undefined ? undefined : processTreeCpuMs(options.pid);
  let outputAtStep = options.output?.().length ?? 0;
  const fail = (why: string) => {
    const out = options.output?.();
    return new WaitError(`${options.what}: ${why}${out ? `:\n${out}` : ''}`);
  };
  for (;;) {
    const value = await options.check();
    if (value !== undefined) return value;
    const gone = options.gone?.();
    if (gone) throw fail(gone);
    const now = Date.now();
    const cpu = options.pid === undefined ? undefined : processTreeCpuMs(options.pid);
    if (options.pid !== undefined && cpu === undefined && canReadProc())
      throw fail(`process ${options.pid} is gone`);
    const outputLength = options.output?.().length ?? 0;
    if (
      outputLength > outputAtStep ||
      (cpu !== undefined && cpuAtStep !== undefined && cpu - cpuAtStep >= cpuStepMs)
    ) {
      lastStepAt = now;
      cpuAtStep = cpu;
      outputAtStep = outputLength;
    }
    // Without a CPU reading (no /proc: macOS) a quiet process cannot be told from a stuck one:
    // only the ceiling applies.
    if (cpu !== undefined && now - lastStepAt > stallMs)
      throw fail(`no progress for ${seconds(now - lastStepAt)} (no CPU used, no output)`);
    if (now - started > ceilingMs) {
      const watched = options.pid !== undefined || options.output !== undefined;
      throw fail(`not done after ${seconds(now - started)}${watched ? ', although progressing' : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? POLL_MS));
  }
}

/**
 * Polls a condition with nothing of its own to watch (state in the test's process, an answer over
 * HTTP) until it holds, up to CONDITION_CEILING_MS; the error names `what`. Never a bound on how
 * soon: for "within N ms" claims count events (probes, calls), not milliseconds.
 */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: { ceilingMs?: number; pollMs?: number } = {},
): Promise<void> {
  await waitOnProgress({
    what,
    check: async () => ((await check()) ? true : undefined),
    ceilingMs: options.ceilingMs ?? CONDITION_CEILING_MS,
    pollMs: options.pollMs ?? 50,
  });
}

const canReadProc = () => existsSync('/proc/self/stat');

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** Clock ticks per second of /proc's times: USER_HZ, 100 on every Linux build that matters. */
const USER_HZ = 100;

/**
 * CPU time (user + system, ms) used so far by a process and every live descendant, from /proc;
 * undefined where /proc cannot be read. Descendants count because the work may be a grandchild
 * (`pnpm start` runs node under a shell).
 */
export function processTreeCpuMs(pid: number): number | undefined {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  if (!stats.has(pid)) return undefined;
  const children = new Map<number, number[]>();
  for (const [child, { ppid }] of stats) children.set(ppid, [...(children.get(ppid) ?? []), child]);
  let ticks = 0;
  const queue = [pid];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    ticks += stats.get(next)?.ticks ?? 0;
    queue.push(...(children.get(next) ?? []));
  }
  return (ticks * 1000) / USER_HZ;
}

function readStat(pid: number): { ppid: number; ticks: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // Fields from 3 (state) on: ppid is field 4, utime 14, stime 15, cutime 16, cstime 17 (proc(5)).
  const at = (field: number) => Number(fields[field - 3]);
  return { ppid: at(4), ticks: at(14) + at(15) + at(16) + at(17) };
}
