import { UnauthorizedError } from '@svc/tool-kit';
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
 * a pass. Every service that takes device data (core ingest, debug files, recall uploads and polls)
 * checks requests this one way (docs/ingest.md, signing).
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
  if (!signatureMatches(key.secret, timestamp, body, signature)) throw new IngestAuthError('bad signature');
  return key.projectId;
}
