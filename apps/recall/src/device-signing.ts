import { randomBytes } from 'node:crypto';
import { NONCE_HEADER, signRequest } from '@svc/ingest-auth';

/**
 * The headers of a device request to recall, as an SDK sends them (docs/recall.md, "Device side"):
 * signed whole (v2) over the method, `target` (the path and query exactly as sent), the timestamp,
 * a fresh nonce and the body. For tests and the demo seeding; the React Native SDK signs the same.
 */
export function signedDeviceHeaders(
  key: { key_id: string; secret: string },
  request: { method: string; target: string; body?: string | Uint8Array; timestampSeconds: number },
): Record<string, string> {
  const nonce = randomBytes(16).toString('hex');
  const timestamp = request.timestampSeconds;
  return {
    'x-svc-key': key.key_id,
    'x-svc-timestamp': String(timestamp),
    [NONCE_HEADER]: nonce,
    'x-svc-signature': signRequest(
      key.secret,
      { timestamp, nonce, method: request.method, target: request.target },
      request.body ?? '',
    ),
  };
}
