import type { Command } from '../command';

/** The org, project and first user of a fresh stack; with --token / --ingest-key their first keys. */
export const bootstrap: Command = {
  name: 'bootstrap',
  positionals: 1,
  async run({ values: v }, call) {
    const body = {
      org_name: v['org-name'] ?? 'Default organization',
      project_name: v['project-name'] ?? 'demo',
      user_email: v.email ?? 'admin@example.com',
      ...(v.password ? { user_password: v.password } : {}),
    };
    const r = await call<{
      org_id: string;
      project_id: string;
      user_id: string;
      created: boolean;
      user_password?: string;
    }>('POST', '/internal/v1/admin/bootstrap', body);
    const password = r.user_password ? `, password ${r.user_password} (shown once)` : '';
    const lines = [
      `${r.created ? 'set up' : 'already set up'}: org ${r.org_id}, project ${r.project_id}, user ${body.user_email} (${r.user_id})${password}`,
    ];
    const extra: Record<string, unknown> = {};
    if (v.token) {
      const t = await call<{ token: string; token_id: string; expires_at: string }>(
        'POST',
        '/internal/v1/admin/tokens',
        { project_id: r.project_id, user_id: r.user_id, name: 'bootstrap' },
      );
      extra.token = t;
      lines.push(`MCP token (shown once; token ${t.token_id}, expires ${t.expires_at}): ${t.token}`);
    }
    if (v['ingest-key']) {
      const k = await call<{ key_id: string; secret: string; dsn: string }>(
        'POST',
        '/internal/v1/admin/ingest-keys',
        { project_id: r.project_id },
      );
      extra.ingest_key = k;
      lines.push(`ingest key ${k.key_id} (secret shown once)\nDSN: ${k.dsn}`);
    }
    return { json: { ...r, ...extra }, text: lines.join('\n') };
  },
};
