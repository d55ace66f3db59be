import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type HexHmac, ingestSignature } from '../ingest-signing';

/** node:crypto's HMAC-SHA256 as the signing functions take it (tests run in Node). */
export const nodeHmacHex: HexHmac<string | Uint8Array, string> = (secret, prefix, body) =>
  createHmac('sha256', secret).update(prefix, 'utf8').update(body).digest('hex');

/** Whether a request's headers sign `body` with `secret` as the core checks it (test sinks). */
export function hasIngestSignature(
  headers: IncomingHttpHeaders,
  secret: string,
  body: string | Uint8Array,
): boolean {
  const timestamp = String(headers['x-svc-timestamp'] ?? '');
  return headers['x-svc-signature'] === ingestSignature(nodeHmacHex, secret, timestamp, body);
}
