// Test-only (subpath ./testing): the host page's script of view-host.ts, bundled for a browser
// page (the extension's AppBridge inside), for the tests that load a view the way a host does.

import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export async function viewHostBundle(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./view-host.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
  });
  return result.outputFiles[0]!.text;
}
