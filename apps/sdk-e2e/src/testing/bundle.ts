import { createRequire } from 'node:module';
import { build } from 'esbuild';

/** The SDK as a page loads it: one IIFE defining `window.SvcWeb`, built from the sources. */
export async function bundleSdk(): Promise<string> {
  const out = await build({
    entryPoints: [createRequire(import.meta.url).resolve('@svc/sdk-web')],
    bundle: true,
    format: 'iife',
    globalName: 'SvcWeb',
    platform: 'browser',
    target: 'chrome100',
    write: false,
  });
  return out.outputFiles[0]!.text;
}
