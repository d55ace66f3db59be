import { runService } from '@svc/config';
import { loadStandaloneConfig } from './config';
import { AlreadyRunningError, acquireInstanceLock } from './instance-lock';
import { PortInUseError } from './listen';
import { startStandalone } from './start';

// `pnpm start`: the whole stack in one process. Expected failures (bad config, a second
// instance, a busy port) end with a one-paragraph message and exit 1, never a stack trace.
const startedAt = Date.now();
await runService({
  name: 'pnpm start',
  load: loadStandaloneConfig,
  refusal: {
    say: (message) => `pnpm start: ${message}`,
    also: (err) => err instanceof AlreadyRunningError || err instanceof PortInUseError,
  },
  failed: (detail) => `pnpm start failed: ${detail}`,
  async wire(config) {
    const { release } = acquireInstanceLock(config.dataDir);
    try {
      return await startStandalone(config, startedAt, release);
    } catch (err) {
      release();
      throw err;
    }
  },
});
