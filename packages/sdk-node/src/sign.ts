import { createHmac } from 'node:crypto';
import { type HexHmac, ingestSignature } from '@svc/sdk-core';

/** node:crypto's HMAC-SHA256 as sdk-core's signing takes it. */
const nodeHmacHex: HexHmac<string, string> = (secret, prefix, body) =>
  createHmac('sha256', secret).update(prefix, 'utf8').update(body, 'utf8').digest('hex');

/** `X-Svc-Signature`: `v1=` + hex HMAC-SHA256 with the key's secret over `timestamp + "." + body`. */
export function signBody(secret: string, timestamp: number, body: string): string {
  return ingestSignature(nodeHmacHex, secret, timestamp, body);
}
