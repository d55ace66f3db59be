import { randomBytes } from 'node:crypto';
import { type Command, required } from '../command';

/** A person who signs in to the web console; without --password one is generated and shown once. */
export const userCreate: Command = {
  name: 'user create',
  positionals: 2,
  async run({ values: v }, call) {
    // A generated password: 18 random bytes, base64url (144 bits), shown once.
    const password = v.password ?? randomBytes(18).toString('base64url');
    const r = await call<{ user_id: string; email: string; org_id: string }>(
      'POST',
      '/internal/v1/admin/users',
      {
        email: required(v.email, '--email'),
        password,
        org_id: required(v.org, '--org'),
      },
    );
    const shown = v.password ? '' : `, password ${password} (shown once)`;
    return {
      json: { ...r, ...(v.password ? {} : { password }) },
      text: `user ${r.email} (${r.user_id}) in org ${r.org_id}${shown}`,
    };
  },
};
