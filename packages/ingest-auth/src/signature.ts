import { createHmac, timingSafeEqual } from 'node:crypto';
import { updateInSlices } from './hash-in-slices';

// Ingest request signing (docs/ingest.md):
//   X-Svc-Signature: v1=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>

export const MAX_CLOCK_SKEW_SECONDS = 300;

/** The header value a client sends. Shared by tests, the demo seeding and the README example. */
export function signIngestBody(secret: string, timestamp: number | string, body: string | Buffer): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`, 'utf8');
  mac.update(body);
  return `v1=${mac.digest('hex')}`;
}

/**
 * Constant-time check of a received signature header against the expected one. The body is
 * hashed a megabyte at a time (hash-in-slices.ts): a big body does not hold the event loop.
 */
export async function signatureMatches(
  secret: string,
  timestamp: string,
  body: Buffer,
  received: string,
): Promise<boolean> {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`, 'utf8');
  await updateInSlices(mac, body);
  const expected = Buffer.from(`v1=${mac.digest('hex')}`, 'utf8');
  const got = Buffer.from(received, 'utf8');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** Unix seconds within the allowed skew of `nowMs`. */
export function timestampFresh(timestamp: string, nowMs: number): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(Number(timestamp) - nowMs / 1000) <= MAX_CLOCK_SKEW_SECONDS;
}
