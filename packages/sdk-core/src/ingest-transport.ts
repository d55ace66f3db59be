import type { ExportSend, ExportTransport } from './exporter-types';
import { ingestHeaders } from './ingest-signing';

/**
 * How the SDKs send: signed with the ingest key by the runtime's HMAC-SHA256 `sign` (docs/ingest.md,
 * "Authentication") to `/ingest/v1/batch`. A browser names the key in the URL too (the CORS preflight
 * before the post carries no header values, and the core allows origins per key) and sends with
 * keepalive.
 */
export function ingestTransport(
  sign: (secret: string, timestamp: number, body: string) => string | Promise<string>,
  options: { browser?: boolean; send?: ExportSend } = {},
): ExportTransport {
  return {
    headers: async (target, timestamp, body) =>
      ingestHeaders(target.keyId, timestamp, await sign(target.secret, timestamp, body)),
    url: (target) =>
      `${target.endpoint}/ingest/v1/batch${options.browser ? `?svc_key=${encodeURIComponent(target.keyId)}` : ''}`,
    // Plain keys, not spreads of optional ones: what is not given is undefined, read as absent.
    keepalive: options.browser,
    send: options.send,
  };
}
