import type { Queryable } from '@svc/postgres';
import { newId } from '../ids';

export interface User {
  user_id: string;
  email: string;
  org_id: string;
  password_hash: string;
}

export async function createUser(
  q: Queryable,
  input: { email: string; passwordHash: string; orgId: string },
  now: Date,
): Promise<User> {
  const user = {
    user_id: newId('usr'),
    email: input.email,
    org_id: input.orgId,
    password_hash: input.passwordHash,
  };
  await q.query(
    'INSERT INTO users (user_id, email, password_hash, org_id, created_at) VALUES ($1, $2, $3, $4, $5)',
    [user.user_id, user.email, user.password_hash, user.org_id, now],
  );
  return user;
}

export async function findUserByEmail(q: Queryable, email: string): Promise<User | undefined> {
  const { rows } = await q.query<User>(
    'SELECT user_id, email, org_id, password_hash FROM users WHERE email = $1',
    [email],
  );
  return rows[0];
}

export async function getUser(q: Queryable, userId: string): Promise<User | undefined> {
  const { rows } = await q.query<User>(
    'SELECT user_id, email, org_id, password_hash FROM users WHERE user_id = $1',
    [userId],
  );
  return rows[0];
}
