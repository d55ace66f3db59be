// Builds each view as one self-contained HTML document: its script bundled by esbuild and the
// shared stylesheet, both inline and both allowed by hash in the document's own CSP, which
// allows nothing else (no network, no other script or style, no frames, no forms).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { build, transform } from 'esbuild';
import { VIEWS, type ViewDefinition, type ViewName } from './views';

const BROWSER_DIR = new URL('./browser/', import.meta.url);

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

async function bundleScript(name: ViewName): Promise<string> {
  const result = await build({
    entryPoints: [new URL(`${name}.ts`, BROWSER_DIR).pathname],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    legalComments: 'none',
    write: false,
  });
  const script = result.outputFiles[0]?.text.trim() ?? '';
  // esbuild escapes "</script" inside strings; this guards the inline document all the same.
  if (/<\/script/i.test(script)) throw new Error(`view ${name}: the bundle would close its <script>`);
  return script;
}

async function stylesheet(): Promise<string> {
  const css = readFileSync(new URL('styles.css', BROWSER_DIR), 'utf8');
  return (await transform(css, { loader: 'css', minify: true })).code.trim();
}

export async function buildViewHtml(view: ViewDefinition): Promise<string> {
  const [script, style] = await Promise.all([bundleScript(view.name), stylesheet()]);
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    `<title>${escapeHtml(view.title)}</title>`,
    `<style>${style}</style>`,
    '</head><body><main id="view"><p class="message" role="status">Waiting for the tool result…</p></main>',
    `<script>${script}</script>`,
    '</body></html>',
  ].join('');
}

export async function buildAllViews(): Promise<Record<ViewName, string>> {
  const built = await Promise.all(VIEWS.map(async (view) => [view.name, await buildViewHtml(view)] as const));
  return Object.fromEntries(built) as Record<ViewName, string>;
}
