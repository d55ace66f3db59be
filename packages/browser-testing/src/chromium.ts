import { existsSync } from 'node:fs';

// The browser tests drive the system's Chromium (Debian's `chromium` package, installed by
// .ci/run): playwright-core never downloads one. CHROMIUM_PATH names another executable.
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/**
 * The executable to drive, or undefined where there is none. In CI a missing browser is an
 * error, not a skip: the browser tests are part of what CI proves.
 */
export function findChromium(): string | undefined {
  const found = [process.env.CHROMIUM_PATH, ...CANDIDATES].find(
    (path): path is string => !!path && existsSync(path),
  );
  if (!found && process.env.CI)
    throw new Error(
      'CI needs Chromium for the browser tests: apt-get install chromium, or set CHROMIUM_PATH',
    );
  return found;
}
