import type { Command } from '../command';

export const projectCreate: Command = {
  name: 'project create',
  positionals: 3,
  async run(args, call) {
    const body = { name: args.positionals[2]!, ...(args.values.org ? { org_id: args.values.org } : {}) };
    const r = await call<{ project_id: string; org_id: string; name: string }>(
      'POST',
      '/internal/v1/admin/projects',
      body,
    );
    return { json: r, text: `project ${r.project_id} "${r.name}" in org ${r.org_id}` };
  },
};
