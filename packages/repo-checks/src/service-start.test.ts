import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder, ROOT, read } from './repository';

// One way to start a service: every app's main.ts goes through runService (@svc/config), which
// refuses a bad configuration with one message, listens, and stops on SIGINT/SIGTERM the same way
// everywhere; a main.ts names and wires, it handles no signal of its own.
// apps/bench's main.ts is a measurement run, not a service.
const NOT_SERVICES = new Set(['bench']);

const MAINS = readdirSync(join(ROOT, 'apps'))
  .filter((app) => !NOT_SERVICES.has(app))
  .map((app) => `apps/${app}/src/main.ts`)
  .filter((path) => {
    try {
      read(path);
      return true;
    } catch {
      return false;
    }
  });

it('finds the services (identity, the core, the gateway, stdio, recall, copilot, console, standalone)', () => {
  expect(MAINS.length).toBeGreaterThanOrEqual(8);
});

it('starts every service through runService', () => {
  const without = MAINS.filter((path) => {
    const text = read(path);
    return (
      !/import \{[^}]*\brunService\b[^}]*\} from '@svc\/config'/.test(text) || !/\brunService\(/.test(text)
    );
  });
  expect(without).toEqual([]);
});

it('leaves the signals to runService', () => {
  expect(MAINS.filter((path) => /process\.(on|once)\(\s*'SIG/.test(read(path)))).toEqual([]);
});

// The internal secret is compared in one place (tool-server's internal-auth.ts: internalSecretCheck,
// and requireInternalSecret built on it), so every service checks it the same way, in constant time.
it('compares X-Internal-Secret only in internal-auth.ts', () => {
  const comparers = ['apps', 'packages']
    .flatMap((dir) => filesUnder(dir, ['.ts', '.tsx']))
    .filter((path) => !/\.test\.tsx?$|\/testing\/|\/e2e\//.test(path))
    .filter((path) => {
      const text = read(path);
      return /x-internal-secret/i.test(text) && /\btimingSafeEqual\b/.test(text);
    });
  expect(comparers).toEqual(['packages/tool-server/src/internal-auth.ts']);
});
