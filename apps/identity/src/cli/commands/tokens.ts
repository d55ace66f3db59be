import { type Command, required, usage } from '../command';

interface TokenItem {
  token_id: string;
  name: string;
  scopes: string[];
  expires_at: string;
  revoked_at: string | null;
  last_four: string;
}

export const tokenCreate: Command = {
  name: 'token create',
  positionals: 2,
  async run({ values: v }, call) {
    const days = v.days === undefined ? undefined : Number(v.days);
    if (days !== undefined && !Number.isInteger(days)) throw usage('--days must be a whole number of days');
    const body = {
      project_id: required(v.project, '--project'),
      ...(v.name ? { name: v.name } : {}),
      ...(days !== undefined ? { days } : {}),
    };
    const r = await call<{ token: string; token_id: string; expires_at: string }>(
      'POST',
      '/internal/v1/admin/tokens',
      body,
    );
    return {
      json: r,
      text: `${r.token}\n(token ${r.token_id}, expires ${r.expires_at}; shown only this once)`,
    };
  },
};

export const tokenList: Command = {
  name: 'token list',
  positionals: 2,
  async run({ values: v }, call) {
    const project = required(v.project, '--project');
    const r = await call<{ items: TokenItem[] }>(
      'GET',
      `/internal/v1/admin/tokens?project_id=${encodeURIComponent(project)}`,
    );
    const lines = r.items.map(
      (t) =>
        `${t.token_id}  ${t.name}  ...${t.last_four}  ${t.scopes.join(',')}  expires ${t.expires_at}` +
        (t.revoked_at ? `  revoked ${t.revoked_at}` : ''),
    );
    return { json: r, text: lines.length > 0 ? lines.join('\n') : 'no tokens' };
  },
};

export const tokenRevoke: Command = {
  name: 'token revoke',
  positionals: 3,
  async run(args, call) {
    const id = args.positionals[2]!;
    const r = await call<{ token_id: string; revoked_at: string }>(
      'POST',
      `/internal/v1/admin/tokens/${encodeURIComponent(id)}/revoke`,
    );
    return { json: r, text: `token ${r.token_id} revoked at ${r.revoked_at}` };
  },
};
