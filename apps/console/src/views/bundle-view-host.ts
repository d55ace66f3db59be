import { fileURLToPath } from 'node:url';

// esbuild is a build tool (a dev dependency): imported by a name the app's own bundler does not
// follow, so a built console neither bundles it nor needs it (it reads dist/view-host.js).
const ESBUILD = 'esbuild';
type Esbuild = typeof import('esbuild');

/** The host script for browsers: one minified IIFE, the extension's AppBridge inside. */
export async function bundleViewHost(): Promise<string> {
  const { build } = (await import(ESBUILD)) as Esbuild;
  const result = await build({
    entryPoints: [fileURLToPath(new URL('../browser/view-host.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'warning',
  });
  return result.outputFiles[0]!.text;
}
