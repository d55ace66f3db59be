import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChromium } from './chromium';

describe('findChromium', () => {
  const saved = { path: process.env.CHROMIUM_PATH, ci: process.env.CI };
  afterEach(() => {
    process.env.CHROMIUM_PATH = saved.path;
    process.env.CI = saved.ci;
    if (saved.path === undefined) delete process.env.CHROMIUM_PATH;
    if (saved.ci === undefined) delete process.env.CI;
  });

  it('prefers CHROMIUM_PATH when it exists', () => {
    const exe = join(mkdtempSync(join(tmpdir(), 'chromium-')), 'chrome');
    writeFileSync(exe, '');
    process.env.CHROMIUM_PATH = exe;
    expect(findChromium()).toBe(exe);
  });

  it('in CI, a missing browser is an error naming the fix, not a skip', () => {
    process.env.CHROMIUM_PATH = '/nonexistent/chromium';
    process.env.CI = 'true';
    const found = (() => {
      try {
        return findChromium();
      } catch (err) {
        return err as Error;
      }
    })();
    // On a machine with a system Chromium it is found; without one, CI fails loudly.
    if (found instanceof Error) expect(found.message).toContain('apt-get install chromium');
    else expect(found).toMatch(/chrom/);
  });
});
