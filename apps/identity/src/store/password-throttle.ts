import type { Postgres, Queryable } from '@svc/postgres';
import type { ThrottleKeys } from '../throttle/keys';
import {
  type Counter,
  countFailure,
  FORGET_AFTER_MS,
  GOOD_STANDING_MS,
  type ThrottleScope,
  type Verdict,
  verdict,
} from '../throttle/policy';

// The throttle's counters in identity's store (migration 0007). An attempt is counted as a failure
// before its password is checked, under the rows' locks, so concurrent guesses queue on the counter
// and at most the free failures plus one are ever checked before a lock holds them back; a success
// takes its own failure back.

interface CounterRow {
  scope: ThrottleScope;
  failures: number;
  last_failure_at: Date;
  locked_until: Date;
}

const SCOPES: ThrottleScope[] = ['account', 'address', 'pair'];

/** A refusal rolls its transaction back: nothing of a refused attempt is stored. */
class Refused extends Error {
  constructor(readonly verdict: Verdict) {
    super('refused');
  }
}

export interface ClaimedAttempt {
  /** Failures counted for each scope, this attempt included. */
  failures: Record<ThrottleScope, number>;
  goodStanding: boolean;
}

/**
 * Counts an attempt as a failure unless a lock holds it back. Answers the refusal's wait, or the
 * counts with this attempt included.
 */
export async function claimAttempt(
  db: Postgres,
  keys: ThrottleKeys,
  now: Date,
): Promise<{ refused: Verdict } | { claimed: ClaimedAttempt }> {
  try {
    return {
      claimed: await db.transaction(async (tx) => {
        const goodStanding = await isInGoodStanding(tx, keys.pair, now);
        // Rows first (a new one counts nothing yet), then locked in a fixed order: concurrent
        // attempts on the same counters wait for each other instead of reading the same count.
        for (const scope of SCOPES) {
          await tx.query(
            `INSERT INTO password_throttle (scope, key, failures, last_failure_at, locked_until)
             VALUES ($1, $2, 0, $3, $3) ON CONFLICT (scope, key) DO NOTHING`,
            [scope, keys[scope], now],
          );
        }
        const { rows } = await tx.query<CounterRow>(
          `SELECT scope, failures, last_failure_at, locked_until FROM password_throttle
           WHERE (scope = 'account' AND key = $1) OR (scope = 'address' AND key = $2)
              OR (scope = 'pair' AND key = $3)
           ORDER BY scope FOR UPDATE`,
          [keys.account, keys.address, keys.pair],
        );
        const counters: Partial<Record<ThrottleScope, Counter>> = {};
        for (const row of rows) {
          counters[row.scope] = {
            failures: row.failures,
            lastFailureAt: row.last_failure_at.getTime(),
            lockedUntil: row.locked_until.getTime(),
          };
        }
        const held = verdict(counters, goodStanding, now.getTime());
        if (held.waitMs > 0) throw new Refused(held);
        const failures = {} as Record<ThrottleScope, number>;
        for (const scope of SCOPES) {
          const next = countFailure(scope, counters[scope], now.getTime());
          failures[scope] = next.failures;
          await tx.query(
            `UPDATE password_throttle SET failures = $3, last_failure_at = $4, locked_until = $5
             WHERE scope = $1 AND key = $2`,
            [scope, keys[scope], next.failures, new Date(next.lastFailureAt), new Date(next.lockedUntil)],
          );
        }
        return { failures, goodStanding };
      }),
    };
  } catch (err) {
    if (err instanceof Refused) return { refused: err.verdict };
    throw err;
  }
}

/**
 * The password was right: the pair starts over and is in good standing from now on; the account's
 * and the address's counters take back this attempt's failure (other people's stay).
 */
export async function recordSuccess(db: Postgres, keys: ThrottleKeys, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`DELETE FROM password_throttle WHERE scope = 'pair' AND key = $1`, [keys.pair]);
    await tx.query(
      `UPDATE password_throttle SET failures = GREATEST(failures - 1, 0)
       WHERE (scope = 'account' AND key = $1) OR (scope = 'address' AND key = $2)`,
      [keys.account, keys.address],
    );
    await tx.query(
      `INSERT INTO password_known_addresses (pair_key, last_success_at) VALUES ($1, $2)
       ON CONFLICT (pair_key) DO UPDATE SET last_success_at = EXCLUDED.last_success_at`,
      [keys.pair, now],
    );
  });
}

async function isInGoodStanding(q: Queryable, pairKey: string, now: Date): Promise<boolean> {
  const { rows } = await q.query(
    'SELECT 1 FROM password_known_addresses WHERE pair_key = $1 AND last_success_at > $2',
    [pairKey, new Date(now.getTime() - GOOD_STANDING_MS)],
  );
  return rows.length > 0;
}

/**
 * Forgets counters past their window and addresses past their good standing: the tables hold at
 * most an hour of attempts and a month of sign-ins.
 */
export async function purgeExpired(db: Queryable, now: Date): Promise<void> {
  await db.query('DELETE FROM password_throttle WHERE last_failure_at < $1 AND locked_until < $2', [
    new Date(now.getTime() - FORGET_AFTER_MS),
    now,
  ]);
  await db.query('DELETE FROM password_known_addresses WHERE last_success_at < $1', [
    new Date(now.getTime() - GOOD_STANDING_MS),
  ]);
}
