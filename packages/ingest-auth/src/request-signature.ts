import { createHmac, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '@svc/errors';
import { updateInSlices } from './hash-in-slices';
import type { IngestKeyResolver } from './key-resolver';
import { timestampFresh } from './signature';

// Request signing, v2 (docs/ingest.md, "Signing a whole request"): for endpoints whose query
// string says what a request does or where its body goes (recall's device side), signing the body
// alone let a captured request be sent again under another query. A v2 signature covers the
// method, the path and query exactly as sent, the timestamp, a nonce and the raw body:
//
//   X-Svc-Nonce:     16 to 128 characters of A-Z a-z 0-9 - _ (fresh for every request)
//   X-Svc-Signature: v2=<hex HMAC-SHA256(secret, "v2\n" + timestamp + "\n" + nonce + "\n" +
//                        METHOD + "\n" + path?query + "\n" + raw body)>
//
// No part before the body can hold a newline (digits, the nonce's alphabet, a method, a request
// target), so the signed text splits one way only. The service remembers each nonce while its
// timestamp is fresh (its replay memory), which makes every signature single-use.

export const NONCE_HEADER = 'x-svc-nonce';
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;
const METHOD = /^[A-Z]{1,16}$/;

export interface SignedRequestParts {
  timestamp: number | string;
  nonce: string;
  method: string;
  /** The path and query as sent (`/device/v1/recalls?device_id=d1`), no scheme or host. */
  target: string;
}

const signedPrefix = (p: SignedRequestParts) =>
  `v2\n${p.timestamp}\n${p.nonce}\n${p.method.toUpperCase()}\n${p.target}\n`;

/** The X-Svc-Signature value of a request. Shared by tests, the demo seeding and the docs' example. */
export function signRequest(
  secret: string,
  parts: SignedRequestParts,
  body: string | Uint8Array = '',
): string {
  const mac = createHmac('sha256', secret);
  mac.update(signedPrefix(parts), 'utf8');
  mac.update(body);
  return `v2=${mac.digest('hex')}`;
}

/** Constant-time check of a v2 signature; the body is hashed a megabyte at a time. */
export async function requestSignatureMatches(
  secret: string,
  parts: SignedRequestParts,
  body: Buffer,
  received: string,
): Promise<boolean> {
  const mac = createHmac('sha256', secret);
  mac.update(signedPrefix(parts), 'utf8');
  await updateInSlices(mac, body);
  const expected = Buffer.from(`v2=${mac.digest('hex')}`, 'utf8');
  const got = Buffer.from(received, 'utf8');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/** A request without a valid v2 signature (401); the answer does not say which check failed. */
export class RequestAuthError extends UnauthorizedError {
  constructor(reason: string) {
    super(reason);
    this.message =
      'A valid ingest key, timestamp, nonce and request signature (v2, over the method, path and query, timestamp, nonce and body) are required.';
  }
}

export interface AuthenticatedRequest {
  projectId: string;
  keyId: string;
  nonce: string;
  /** Unix seconds, as signed: the signature is fresh until MAX_CLOCK_SKEW_SECONDS after it. */
  timestamp: number;
}

/**
 * Who signed a request with a v2 signature, or RequestAuthError. Identity down: 503, never a pass.
 * The caller remembers the nonce (AuthenticatedRequest) until the timestamp is stale, and refuses
 * one it has seen: only that makes the signature single-use.
 */
export async function authenticateSignedRequest(
  header: (name: string) => string | undefined,
  request: { method: string; target: string; body: Buffer },
  deps: { ingestKeys: IngestKeyResolver; now: () => number },
): Promise<AuthenticatedRequest> {
  const keyId = header('x-svc-key');
  const timestamp = header('x-svc-timestamp');
  const nonce = header(NONCE_HEADER);
  const signature = header('x-svc-signature');
  if (!keyId || !timestamp || !nonce || !signature) throw new RequestAuthError('missing signing headers');
  if (!signature.startsWith('v2=')) throw new RequestAuthError('not a v2 signature');
  if (!NONCE.test(nonce)) throw new RequestAuthError('malformed nonce');
  if (!METHOD.test(request.method)) throw new RequestAuthError('unexpected method');
  if (!timestampFresh(timestamp, deps.now()))
    throw new RequestAuthError('timestamp outside the allowed skew');
  const key = await deps.ingestKeys.resolve(keyId);
  if (!key) throw new RequestAuthError('unknown ingest key');
  if (!key.active) throw new RequestAuthError('inactive ingest key');
  const parts = { timestamp, nonce, method: request.method, target: request.target };
  if (!(await requestSignatureMatches(key.secret, parts, request.body, signature)))
    throw new RequestAuthError('bad signature');
  return { projectId: key.projectId, keyId, nonce, timestamp: Number(timestamp) };
}
