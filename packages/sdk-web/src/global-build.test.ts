import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';

// The script-tag build as `pnpm build` and `pnpm pack` make it: one minified file defining
// window.SvcWeb, its source map, and its SRI hash beside it, printed.

// Built into a folder of its own: a pack running meanwhile empties dist/.
const out = mkdtempSync(join(tmpdir(), 'svc-web-global-'));
const dist = (file: string) => join(out, file);

describe('the script-tag build', () => {
  let printed: string;
  beforeAll(() => {
    printed = execFileSync(
      process.execPath,
      [fileURLToPath(new URL('../scripts/build-global.mjs', import.meta.url)), out],
      {
        encoding: 'utf8',
      },
    );
  });

  it('writes the integrity of the file beside it and prints it', () => {
    const integrity = `sha384-${createHash('sha384')
      .update(readFileSync(dist('svc-web.min.js')))
      .digest('base64')}`;
    expect(readFileSync(dist('svc-web.min.js.sri'), 'utf8')).toBe(`${integrity}\n`);
    expect(printed).toContain(`integrity="${integrity}"`);
  });

  it('defines window.SvcWeb with init and captureError, names its source map, and starts nothing without data-dsn', () => {
    const code = readFileSync(dist('svc-web.min.js'), 'utf8');
    expect(code).toMatch(/\/\/# sourceMappingURL=svc-web\.min\.js\.map\n?$/);
    expect(
      JSON.parse(readFileSync(dist('svc-web.min.js.map'), 'utf8')).sourcesContent.length,
    ).toBeGreaterThan(0);
    // A page whose script tag has no data attributes; a worker has no document at all.
    for (const page of [{ document: { currentScript: null } }, {}] as {
      SvcWeb?: Record<string, unknown>;
    }[]) {
      runInNewContext(code, page);
      expect(typeof page.SvcWeb?.init).toBe('function');
      expect(page.SvcWeb?.init).toBe(page.SvcWeb?.initTracing);
      expect(typeof page.SvcWeb?.captureError).toBe('function');
      expect(typeof page.SvcWeb?.traceHeaders).toBe('function');
      expect(page.SvcWeb?.started).toBeUndefined();
      // What a page without a bundler calls, and nothing it would pay for without calling.
      expect(Object.keys(page.SvcWeb ?? {}).sort()).toEqual([
        'captureError',
        'init',
        'initTracing',
        'started',
        'traceHeaders',
        'withSpan',
      ]);
    }
  });
});
