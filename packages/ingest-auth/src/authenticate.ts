import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '@svc/errors';
import type { IngestKeyResolver } from './key-resolver';
import { signatureMatches, timestampFresh } from './signature';

/** A request that is not signed by an active ingest key of some project (401). */
export class IngestAuthError extends UnauthorizedError {
  constructor(reason: string) {
    super(reason);
    this.message = 'A valid ingest key, timestamp and signature are required.';
  }
}

export interface IngestAuthDeps {
  ingestKeys: IngestKeyResolver;
  now: () => number;
}

/**
 * The project a device or SDK request may act for, or IngestAuthError. Identity down: 503, never
 * a pass. The core's routes that take device data (ingest, debug files) check the body signature
 * this one way (docs/ingest.md, "Authentication"); recall's device requests are signed whole and
 * checked by authenticateSignedRequest.
 */
export async function authenticateIngest(
  header: (name: string) => string | undefined,
  body: Buffer,
  deps: IngestAuthDeps,
): Promise<string> {
  const keyId = header('x-svc-key');
  const timestamp = header('x-svc-timestamp');
  const signature = header('x-svc-signature');
  if (!keyId || !timestamp || !signature) throw new IngestAuthError('missing ingest headers');
  if (!timestampFresh(timestamp, deps.now())) throw new IngestAuthError('timestamp outside the allowed skew');
  const key = await deps.ingestKeys.resolve(keyId);
  if (!key) throw new IngestAuthError('unknown ingest key');
  if (!key.active) throw new IngestAuthError('inactive ingest key');
  if (!(await signatureMatches(key.secret, timestamp, body, signature)))
    throw new IngestAuthError('bad signature');
  return key.projectId;
}

/** The header of collectors that cannot sign (OTLP exporters): `<key_id>:<secret>`. */
export const INGEST_KEY_HEADER = 'x-svc-ingest-key';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The project of a request that names its ingest key and secret in X-Svc-Ingest-Key, for clients
 * that send a fixed header and cannot sign each body (OpenTelemetry's OTLP exporters). The secret
 * is compared in constant time; the answer does not say which check failed.
 */
export async function authenticateIngestKey(
  header: (name: string) => string | undefined,
  deps: Pick<IngestAuthDeps, 'ingestKeys'>,
): Promise<string> {
  const value = header(INGEST_KEY_HEADER)?.trim() ?? '';
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1)
    throw new IngestKeyAuthError('missing or malformed ingest key header');
  const key = await deps.ingestKeys.resolve(value.slice(0, colon));
  if (!key) throw new IngestKeyAuthError('unknown ingest key');
  if (!key.active) throw new IngestKeyAuthError('inactive ingest key');
  if (!timingSafeEqual(digest(value.slice(colon + 1)), digest(key.secret)))
    throw new IngestKeyAuthError('bad secret');
  return key.projectId;
}

/** 401 for a request without a valid X-Svc-Ingest-Key. */
export class IngestKeyAuthError extends UnauthorizedError {
  constructor(reason: string) {
    super(reason);
    this.message = `A valid ${INGEST_KEY_HEADER} header (<key_id>:<secret>) is required.`;
  }
}
