import { createHmac } from 'node:crypto';

// An upload is signed like an ingest batch: HMAC-SHA256 with the key's secret over
// `<unix seconds>.<body as sent>`, sent as X-Svc-Key, X-Svc-Timestamp and X-Svc-Signature: v1=<hex>.
// The core refuses a timestamp more than 300 s from its clock, so every attempt signs anew.

export function signedHeaders(
  key: { keyId: string; secret: string },
  body: Uint8Array,
  nowMs: number,
): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const mac = createHmac('sha256', key.secret);
  mac.update(`${timestamp}.`, 'utf8');
  mac.update(body);
  return {
    'x-svc-key': key.keyId,
    'x-svc-timestamp': timestamp,
    'x-svc-signature': `v1=${mac.digest('hex')}`,
  };
}
