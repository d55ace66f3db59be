import { ConflictError } from '@svc/errors';
import { type AuthenticatedRequest, MAX_CLOCK_SKEW_SECONDS } from '@svc/ingest-auth';
import type { Postgres } from '@svc/postgres';
import { forgetStaleNonces, rememberNonce } from './store/device-nonces';

// Every signed device request is single-use (docs/recall.md, "Device side"): its nonce is kept in
// the database (so a restart or a second replica forgets nothing) for as long as its timestamp
// passes the freshness check, and a request naming a nonce seen before is refused. Stale nonces
// are deleted at most once a minute, by whichever request comes then.

/** A minute past the signature's freshness: a clock set back a little does not reopen the window. */
const MARGIN_SECONDS = 60;
const FORGET_EVERY_MS = 60_000;

export interface DeviceReplays {
  /** Resolves for a request not seen before; ConflictError (409) for one that was. */
  admit(request: AuthenticatedRequest): Promise<void>;
}

export function createDeviceReplays(db: Postgres, clock: () => Date): DeviceReplays {
  let forgotAt = Number.NEGATIVE_INFINITY;
  return {
    async admit(request) {
      const now = clock();
      if (now.getTime() - forgotAt >= FORGET_EVERY_MS) {
        forgotAt = now.getTime();
        await forgetStaleNonces(db, now);
      }
      const expiresAt = new Date((request.timestamp + MAX_CLOCK_SKEW_SECONDS + MARGIN_SECONDS) * 1000);
      if (!(await rememberNonce(db, request.projectId, request.nonce, expiresAt))) {
        throw new ConflictError(
          'This signed request was received before (its X-Svc-Nonce was used): a replayed request is refused. Sign every request with a fresh nonce.',
        );
      }
    },
  };
}
