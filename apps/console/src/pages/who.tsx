/** @jsxRuntime automatic @jsxImportSource preact */
import type { Names } from '../identity-api';

// Who made an audited call or action, in words: the person's email and the token's name as
// identity names them for the session's org. The ids stay on hover (title) and in each page's
// details; an id identity did not name (another org's, a deleted user, stdio's `local:<user>`) is
// shown as it is.

/** Looks names up by id (the answer of identity's POST /console/v1/names). */
export interface NameBook {
  email(userId: string): string | undefined;
  tokenName(tokenId: string): string | undefined;
}

export function nameBook(names: Names | undefined): NameBook {
  const emails = new Map(names?.users.map((u) => [u.user_id, u.email]));
  const tokens = new Map(names?.tokens.map((t) => [t.token_id, t.name]));
  return { email: (id) => emails.get(id), tokenName: (id) => tokens.get(id) };
}

export function Who({
  userId,
  email,
  tokenId,
  tokenName,
  noToken = 'no token',
}: {
  userId: string | null;
  email: string | null | undefined;
  tokenId: string | null;
  tokenName: string | null | undefined;
  /** What a record without a token says (nothing at all when null). */
  noToken?: string | null;
}) {
  return (
    <>
      {userId ? (
        <span class="who-user" title={email ? userId : undefined}>
          {email ?? userId}
        </span>
      ) : (
        <span class="muted">no user</span>
      )}
      {tokenId ? (
        <>
          <br />
          <small class="muted who-token" title={tokenName ? tokenId : undefined}>
            {tokenName ? `token “${tokenName}”` : tokenId}
          </small>
        </>
      ) : noToken ? (
        <>
          <br />
          <small class="muted">{noToken}</small>
        </>
      ) : null}
    </>
  );
}
