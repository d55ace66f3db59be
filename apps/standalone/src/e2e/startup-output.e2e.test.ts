import { rmSync, statSync } from 'node:fs';
import { type SpawnedStack, spawnStack } from '../testing/spawned-stack';
import { eventually, STACK_SETUP_TIMEOUT_MS } from '../testing/wait-on-progress';

// What a user sees on `pnpm start`: the banner, first. A healthy start (the first one, which seeds
// the demo, and a restart on the same data dir) prints nothing on stderr before it, and no line at
// warn or above: state changes such as a backend answering its first health probe are news, not
// problems. The stack runs with the log level `pnpm start` has by default (SVC_LOG_LEVEL unset).

const BANNER_START = /^\nObservability query stack is running \(started in \d+\.\d s\)\n/;
/** pino's numeric levels: warn is 40, error 50, fatal 60. */
const WARN = 40;

interface LogLine {
  level: number;
  time: number;
  msg?: string;
}

/** The JSON log lines on stderr (anything else on stderr is kept as a line at fatal). */
function stderrLines(stack: SpawnedStack): LogLine[] {
  return stack
    .transcript()
    .filter((chunk) => chunk.stream === 'stderr')
    .map((chunk) => chunk.text)
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        return { level: 60, time: 0, msg: line };
      }
    });
}

async function expectBannerFirst(stack: SpawnedStack): Promise<void> {
  // The ready file follows the banner, but the banner comes through a pipe: on a busy machine the
  // ready file can be seen before the pipe's bytes are read. Whatever came on either pipe before
  // the first stdout chunk is still recorded before it, so waiting for it hides nothing.
  await eventually('the banner read from stdout', () =>
    stack.transcript().some((chunk) => chunk.stream === 'stdout'),
  );
  const transcript = stack.transcript();
  const beforeBanner = transcript.slice(
    0,
    transcript.findIndex((chunk) => chunk.stream === 'stdout'),
  );
  expect(beforeBanner.map((chunk) => chunk.text).join('')).toBe('');
  expect(transcript[0]?.stream).toBe('stdout');
  expect(transcript[0]?.text).toMatch(BANNER_START);
  // The two pipes are read separately, so their order above is the order of arrival. The lines'
  // own times settle it: nothing at warn or above was written before the ready file (which follows
  // the banner).
  const readyAt = statSync(stack.readyFile).mtimeMs;
  expect(stderrLines(stack).filter((line) => line.level >= WARN && line.time <= readyAt)).toEqual([]);
}

let first: SpawnedStack | undefined;
let restarted: SpawnedStack | undefined;

afterAll(async () => {
  await first?.stop();
  await restarted?.stop();
  if (first) rmSync(first.dataDir, { recursive: true, force: true });
});

describe('pnpm start on a healthy machine', () => {
  it(
    'first start: the banner comes first, nothing on stderr before it',
    async () => {
      // Nothing in the data dir: the whole first start, its databases' creation included.
      first = await spawnStack({ env: { SVC_LOG_LEVEL: undefined }, emptyDataDir: true });
      expect(first.env.SVC_LOG_LEVEL).toBeUndefined();
      expect(first.ready.token).toMatch(/^svc_pat_/); // the start that seeded the demo
      await expectBannerFirst(first);
    },
    STACK_SETUP_TIMEOUT_MS,
  );

  it(
    'a restart on the same data dir: the banner comes first, nothing on stderr before it',
    async () => {
      expect(await first!.stop()).toBe(0);
      restarted = await spawnStack({ dataDir: first!.dataDir, env: { SVC_LOG_LEVEL: undefined } });
      expect(restarted.ready.token).toBeNull(); // seeded before: no new token
      await expectBannerFirst(restarted);
    },
    STACK_SETUP_TIMEOUT_MS,
  );
});
