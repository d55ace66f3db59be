import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

// What the Web SDK costs a page, beside the SDKs an app would otherwise pick, each built
// by the same bundler with the same settings from an entry that does the same job (../sizes/):
// fetch and XMLHttpRequest traced, errors reported (the OpenTelemetry SDK has no error capture),
// spans exported. Sizes are bytes of the minified bundle and of it gzip'd at level 9.

/** Ours, gzip'd, over the smaller peer's: the goal is at most this. */
export const SIZE_GOAL_RATIO = 0.25;

/**
 * The settings every entry is built with; the script-tag build (sdk-web's build-global.mjs) uses
 * them too. `__SENTRY_DEBUG__: false` is what Sentry's docs name to drop its debug logging from a
 * production bundle: it only makes that peer smaller.
 */
export const BUNDLE_SETTINGS = {
  bundle: true,
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  treeShaking: true,
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"', __SENTRY_DEBUG__: 'false' },
  logLevel: 'error',
} as const;

export interface BundleSize {
  name: string;
  /** What the entry sets up. */
  what: string;
  minBytes: number;
  gzipBytes: number;
  /** The largest inputs in the bundle (esbuild's metafile), bytes in the output. */
  largest: { input: string; bytes: number }[];
}

export interface SizesReport {
  ours: BundleSize;
  peers: BundleSize[];
  /** Not a peer of equal features: OpenTelemetry with zone.js, for reference. */
  extra: BundleSize[];
  /** The file a page loads with a script tag: the whole API as `window.SvcWeb`. */
  scriptTag: BundleSize;
  /** Ours over the smaller peer, gzip. */
  ratio: number;
  smallerPeer: string;
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** Builds `entry` with the shared settings; `globalName` for the script-tag file. */
export async function measureBundle(
  name: string,
  what: string,
  entry: string,
  globalName?: string,
): Promise<BundleSize & { code: Uint8Array }> {
  const out = await build({
    ...BUNDLE_SETTINGS,
    entryPoints: [entry],
    write: false,
    metafile: true,
    ...(globalName ? { globalName } : {}),
  });
  const code = out.outputFiles[0]!.contents;
  const inputs = Object.values(out.metafile.outputs)[0]!.inputs;
  const largest = Object.entries(inputs)
    .map(([input, { bytesInOutput }]) => ({
      input: input.replace(/^.*node_modules\//, ''),
      bytes: bytesInOutput,
    }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5);
  return { name, what, minBytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, largest, code };
}

export async function benchSizes(): Promise<SizesReport> {
  const strip = ({ code: _code, ...size }: BundleSize & { code: Uint8Array }) => size;
  const ours = strip(
    await measureBundle('@svc/sdk-web', 'fetch + XHR spans, errors, exporter', here('../sizes/ours.ts')),
  );
  const peers = [
    strip(
      await measureBundle(
        '@sentry/browser 11',
        'errors (default integrations) + browserTracingIntegration',
        here('../sizes/sentry.ts'),
      ),
    ),
    strip(
      await measureBundle(
        'OpenTelemetry web 2.x',
        'fetch + XHR instrumentation, OTLP/HTTP exporter, stack context',
        here('../sizes/otel.ts'),
      ),
    ),
  ];
  const extra = [
    strip(
      await measureBundle(
        'OpenTelemetry web 2.x + zone.js',
        'the same with ZoneContextManager',
        here('../sizes/otel-zone.ts'),
      ),
    ),
  ];
  const sdkWeb = dirname(createRequire(import.meta.url).resolve('@svc/sdk-web'));
  const scriptTag = strip(
    await measureBundle(
      'svc-web.min.js',
      'the script-tag file: window.SvcWeb (init, captureError, traceHeaders, withSpan)',
      join(sdkWeb, 'global.ts'),
      'SvcWeb',
    ),
  );
  const smaller = peers.reduce((a, b) => (b.gzipBytes < a.gzipBytes ? b : a));
  return {
    ours,
    peers,
    extra,
    scriptTag,
    ratio: ours.gzipBytes / smaller.gzipBytes,
    smallerPeer: smaller.name,
  };
}
