import { UserInputError } from '@svc/errors';

const MAX_KEY_LENGTH = 255;

/** The Idempotency-Key value: a raw token or a structured-field string ("..."). */
export function parseIdempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const unquoted = /^"(.*)"$/.test(raw) ? raw.slice(1, -1) : raw;
  if (!/^[\x21-\x7e]+$/.test(unquoted) || unquoted.length > MAX_KEY_LENGTH) {
    throw new UserInputError(
      `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters (a UUID is a good choice).`,
    );
  }
  return unquoted;
}
