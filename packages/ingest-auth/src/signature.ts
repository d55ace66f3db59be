import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  type HexHmac,
  type IngestHeaders,
  ingestSignature,
  ingestSignatureAsync,
  signIngest,
} from '@svc/sdk-core';
import { updateInSlices } from './hash-in-slices';

// Ingest request signing (docs/ingest.md): X-Svc-Signature: v1=<hex HMAC-SHA256(secret,
// timestamp + "." + raw body)>. The signed text is sdk-core's (ingestSignature), the one every SDK
// and the CLI sign with: a public package cannot depend on this private one, so the check depends on
// theirs, and the two cannot drift apart.

/** node:crypto's HMAC-SHA256 as sdk-core's signing takes it. */
const nodeHmacHex: HexHmac<string | Uint8Array, string> = (secret, prefix, body) =>
  createHmac('sha256', secret).update(prefix, 'utf8').update(body).digest('hex');

/** The same, the body hashed a megabyte at a time (hash-in-slices.ts): a big body does not hold the event loop. */
const slicedHmacHex: HexHmac<Buffer, Promise<string>> = async (secret, prefix, body) => {
  const mac = createHmac('sha256', secret);
  mac.update(prefix, 'utf8');
  await updateInSlices(mac, body);
  return mac.digest('hex');
};

export const MAX_CLOCK_SKEW_SECONDS = 300;

/** The header value a client sends. Shared by tests, the demo seeding and the README example. */
export function signIngestBody(secret: string, timestamp: number | string, body: string | Buffer): string {
  return ingestSignature(nodeHmacHex, secret, timestamp, body);
}

/** The headers of a request signed with an ingest key, for tests, benches and the demo seeding. */
export function signIngestHeaders(
  key: { keyId: string; secret: string },
  timestamp: number | string,
  body: string | Uint8Array,
): IngestHeaders {
  return signIngest(key, timestamp, body, nodeHmacHex);
}

/** Constant-time check of a received signature header against the expected one. */
export async function signatureMatches(
  secret: string,
  timestamp: string,
  body: Buffer,
  received: string,
): Promise<boolean> {
  const expected = Buffer.from(await ingestSignatureAsync(slicedHmacHex, secret, timestamp, body), 'utf8');
  const got = Buffer.from(received, 'utf8');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** Unix seconds within the allowed skew of `nowMs`. */
export function timestampFresh(timestamp: string, nowMs: number): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(Number(timestamp) - nowMs / 1000) <= MAX_CLOCK_SKEW_SECONDS;
}
