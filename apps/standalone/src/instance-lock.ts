import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class AlreadyRunningError extends Error {
  constructor(
    readonly pid: number,
    readonly dataDir: string,
  ) {
    super(
      `Another stack (pid ${pid}) is already running on ${dataDir}.\n` +
        'Stop it first (Ctrl-C in its terminal), or start a second one with its own SVC_DATA_DIR and ports.',
    );
    this.name = 'AlreadyRunningError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One running stack per data dir: the embedded stores are single-process. A lock file holds the
 * owner's pid; a stale lock (its process gone) is taken over.
 */
export function acquireInstanceLock(dataDir: string): { release(): void } {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'standalone.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid))
        throw new AlreadyRunningError(pid, dataDir);
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take the lock ${path}`);
}
