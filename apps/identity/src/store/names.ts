import type { Queryable } from '@svc/postgres';

// Who an id is, for people reading records that carry only ids (the console's audit pages). Only
// an org's own people and tokens are named: an id of another org stays an id.

export interface Names {
  users: { user_id: string; email: string }[];
  tokens: { token_id: string; name: string }[];
}

/** The emails and token names of the given ids that belong to the org (unknown ids left out). */
export async function namesInOrg(
  q: Queryable,
  orgId: string,
  ids: { userIds: readonly string[]; tokenIds: readonly string[] },
): Promise<Names> {
  const userIds = [...new Set(ids.userIds)];
  const tokenIds = [...new Set(ids.tokenIds)];
  const [users, tokens] = await Promise.all([
    userIds.length === 0
      ? { rows: [] }
      : q.query<Names['users'][number]>(
          'SELECT user_id, email FROM users WHERE org_id = $1 AND user_id = ANY ($2::text[]) ORDER BY user_id',
          [orgId, userIds],
        ),
    tokenIds.length === 0
      ? { rows: [] }
      : q.query<Names['tokens'][number]>(
          'SELECT token_id, name FROM tokens WHERE org_id = $1 AND token_id = ANY ($2::text[]) ORDER BY token_id',
          [orgId, tokenIds],
        ),
  ]);
  return { users: users.rows, tokens: tokens.rows };
}

/** Records with `user_email` and `token_name` added from the org's names (null when not the org's). */
export async function withNames<T extends { user_id: string | null; token_id: string | null }>(
  q: Queryable,
  orgId: string,
  records: T[],
): Promise<(T & { user_email: string | null; token_name: string | null })[]> {
  const names = await namesInOrg(q, orgId, {
    userIds: records.flatMap((r) => (r.user_id ? [r.user_id] : [])),
    tokenIds: records.flatMap((r) => (r.token_id ? [r.token_id] : [])),
  });
  const emails = new Map(names.users.map((u) => [u.user_id, u.email]));
  const tokenNames = new Map(names.tokens.map((t) => [t.token_id, t.name]));
  return records.map((r) => ({
    ...r,
    user_email: (r.user_id && emails.get(r.user_id)) || null,
    token_name: (r.token_id && tokenNames.get(r.token_id)) || null,
  }));
}
