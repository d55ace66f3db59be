import type { KoaContextWithOIDC } from 'oidc-provider';
import { visibleText } from './display-text';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

export interface ErrorPageContent {
  error: string;
  error_description?: string | undefined;
}

/**
 * The authorization server's own page for a request that does not go back to its client (an
 * unknown client or redirect URI, an error before the person answered whose redirect URI is not
 * trusted, a browser that did not start the sign-in, a throttled start): the OAuth error code and
 * its description, escaped, and nothing else. A status below 400 (oidc-provider marks errors
 * meant for a redirect 303) becomes 400.
 */
export function sendErrorPage(koa: KoaContextWithOIDC, out: ErrorPageContent, status = koa.status): void {
  koa.status = Math.max(status, 400);
  koa.type = 'html';
  const code = escapeHtml(visibleText(String(out.error)));
  const description = escapeHtml(visibleText(String(out.error_description ?? '')));
  koa.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head><body><h1>Sign-in failed</h1><p><code>${code}</code>: ${description}</p><p>Go back to your MCP client and connect again.</p></body></html>`;
}
