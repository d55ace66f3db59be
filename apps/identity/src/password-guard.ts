import { RateLimitedError } from '@svc/errors';
import type { IdentityContext } from './context';
import { claimAttempt, purgeExpired, recordSuccess } from './store/password-throttle';
import { accountFingerprint, throttleAddress, throttleKeys } from './throttle/keys';

// Every password check of identity goes through here (console login and step-up; the admin API
// and the CLI only set passwords). Throttled per account, per client address and per both
// (throttle/policy.ts); failures and refusals are counted in metrics and logged as security events
// with the account's fingerprint and the address, never the password or the email.

export type PasswordCheckKind = 'login' | 'step_up';

export interface PasswordAttempt {
  kind: PasswordCheckKind;
  /** The account: the normalized email (also for an email nobody has). */
  account: string;
  /** The client's address (client-address.ts). */
  address: string;
}

/** A check held back by the throttle: 429 with Retry-After and the wait in words. */
export class TooManyAttemptsError extends RateLimitedError {
  constructor(retryAfterSeconds: number) {
    super(
      `Too many failed password attempts; try again in ${inWords(retryAfterSeconds)}.`,
      retryAfterSeconds,
    );
  }
}

function inWords(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

const PURGE_EVERY_MS = 60_000;

export interface PasswordGuard {
  /**
   * Whether `verify` (the password check itself) says yes; it runs only when the throttle lets the
   * attempt through, else TooManyAttemptsError is thrown without looking at the password.
   */
  check(attempt: PasswordAttempt, verify: () => Promise<boolean>): Promise<boolean>;
}

export function passwordGuard(ctx: IdentityContext): PasswordGuard {
  const failures = ctx.metrics.counter(
    'password_failures_total',
    'Wrong passwords at console login and step-up',
    ['kind'],
  );
  const throttled = ctx.metrics.counter(
    'password_throttled_total',
    'Password checks refused by the throttle, by the counter that held them back',
    ['kind', 'scope'],
  );
  let purgedAt = Number.NEGATIVE_INFINITY;

  return {
    async check(attempt, verify) {
      const now = ctx.clock();
      if (now.getTime() - purgedAt >= PURGE_EVERY_MS) {
        purgedAt = now.getTime();
        await purgeExpired(ctx.db, now);
      }
      const keys = throttleKeys(attempt.account, attempt.address);
      const who = {
        kind: attempt.kind,
        account: accountFingerprint(attempt.account),
        address: throttleAddress(attempt.address),
      };
      const claim = await claimAttempt(ctx.db, keys, now);
      if ('refused' in claim) {
        const retryAfter = Math.max(1, Math.ceil(claim.refused.waitMs / 1000));
        throttled.inc({ kind: attempt.kind, scope: claim.refused.scope ?? 'pair' });
        ctx.logger.warn(
          {
            security_event: 'password_throttled',
            ...who,
            scope: claim.refused.scope,
            retry_after_s: retryAfter,
          },
          'password check refused by the throttle',
        );
        throw new TooManyAttemptsError(retryAfter);
      }
      if (await verify()) {
        await recordSuccess(ctx.db, keys, ctx.clock());
        return true;
      }
      failures.inc({ kind: attempt.kind });
      ctx.logger.warn(
        {
          security_event: 'password_failed',
          ...who,
          failures: claim.claimed.failures,
          good_standing: claim.claimed.goodStanding,
        },
        'wrong password',
      );
      return false;
    },
  };
}
