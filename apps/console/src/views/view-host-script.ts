import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { bundleViewHost } from './bundle-view-host';

// The browser host script (src/browser/view-host.ts with the extension's AppBridge, bundled):
// a built console (`pnpm build`, the images) has it beside its bundle as dist/view-host.js; run
// from its sources (`pnpm start`, tests) it is bundled once, at its first request.

const BUILT = new URL('./view-host.js', import.meta.url);

let script: Promise<string> | undefined;

export function viewHostScript(): Promise<string> {
  if (!script) {
    const pending = existsSync(BUILT) ? readFile(BUILT, 'utf8') : bundleViewHost();
    script = pending;
    // A failed bundle is not kept: the next request tries again.
    pending.catch(() => {
      if (script === pending) script = undefined;
    });
  }
  return script;
}
