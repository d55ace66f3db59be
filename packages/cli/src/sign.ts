import { createHmac } from 'node:crypto';
import { type HexHmac, signIngest } from '@svc/sdk-core';

// An upload is signed like an ingest batch (sdk-core's signIngest): HMAC-SHA256 with the key's
// secret over `<unix seconds>.<body as sent>`, sent as X-Svc-Key, X-Svc-Timestamp and
// X-Svc-Signature: v1=<hex>. The core refuses a timestamp more than 300 s from its clock, so every
// attempt signs anew.

/** node:crypto's HMAC-SHA256 as sdk-core's signing takes it. */
const nodeHmacHex: HexHmac<Uint8Array, string> = (secret, prefix, body) =>
  createHmac('sha256', secret).update(prefix, 'utf8').update(body).digest('hex');

export function signedHeaders(
  key: { keyId: string; secret: string },
  body: Uint8Array,
  nowMs: number,
): Record<string, string> {
  return signIngest(key, Math.floor(nowMs / 1000), body, nodeHmacHex);
}
