import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));

/** The SDK as a page loads it: one IIFE defining `window.SvcWeb`, built from the sources. */
export async function bundleSdk(): Promise<string> {
  const out = await build({
    entryPoints: [join(here, '..', 'index.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'SvcWeb',
    platform: 'browser',
    target: 'chrome100',
    write: false,
  });
  return out.outputFiles[0]!.text;
}
